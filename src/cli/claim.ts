// Taking a saved session for this process, kept apart from what resumes it (setup.ts and the agent
// behind it): `relm run --resume` takes the session before it loads the agent, so a process that loses
// a race for it exits having loaded little more than this.
import { relmHomeFrom } from "../config/config.js";
import { SessionServer } from "../host/server.js";
import { resolveSessionId, sessionsDir } from "../session/index.js";

/** A saved session taken for this process: its full id and the bound socket that is its lock. */
export interface Claim {
  id: string;
  server: SessionServer;
}

/**
 * Binds the socket of saved session `id` (a unique prefix will do) under `home`, or of RELM_HOME's.
 * Throws SessionBusyError (exit 1, naming relm attach and relm stop) when another process has it.
 */
export async function claimSession(id: string, env: NodeJS.ProcessEnv, home?: string): Promise<Claim> {
  const relmHome = home ?? relmHomeFrom(env);
  const full = resolveSessionId(sessionsDir(relmHome), id);
  return { id: full, server: await SessionServer.listen(relmHome, full) };
}
