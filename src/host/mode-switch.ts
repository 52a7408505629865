// The `mode` method: the session's permission mode, and a person's switch of it (/mode, shift+tab). A
// switch restarts the kernel under the new mode with its variables restored (agent/core/agent.ts
// switchMode) and is remembered (flags.json), so every later host of the session runs in it too.

import type { Agent } from "../agent/core/agent.js";
import { sandboxed } from "../config/permission-mode.js";
import { cachedProbe, sandboxUnavailable } from "../kernel/sandbox/index.js";
import type { CheckedParamsOf, ModeResult } from "./protocol.js";
import { RPC, RpcError } from "./rpc.js";
import { rememberMode } from "./session-flags.js";

/** What a switch needs of the host that runs the session. */
interface ModeHost {
  readonly id: string;
  readonly home: string;
  readonly session: Agent;
  /** A turn (or an autonomous run of turns) is in progress. */
  readonly busy: boolean;
}

export async function modeMethod(host: ModeHost, p: CheckedParamsOf<"mode">): Promise<ModeResult> {
  const session = host.session;
  const permissions = session.tree.permissions;
  const status = (): ModeResult => ({
    mode: permissions.mode,
    changed: false,
    restored: [],
    notRestored: [],
    ...(permissions.warning ? { warning: permissions.warning } : {}),
  });
  const mode = p.mode;
  if (mode === undefined || mode === permissions.mode) return status();
  if (host.busy || session.children.running > 0)
    throw new RpcError(
      RPC.refused,
      "mode: the agent is working; switch when the turn has ended (its kernel restarts under the new mode), or interrupt it first",
    );
  if (sandboxed(mode)) {
    const kernel = session.tree.options.kernel;
    const missing = sandboxUnavailable(kernel.env, `/mode ${mode}`);
    if (missing) throw new RpcError(RPC.refused, missing);
    const probe = cachedProbe(kernel.env, kernel.cacheDir);
    if (!probe.ok)
      throw new RpcError(
        RPC.refused,
        `/mode ${mode} needs the sandbox, which does not work here: ${probe.detail}; ${probe.fix ?? "see relm doctor"}`,
      );
  }
  const switched = await session.switchMode(mode);
  rememberMode(host.home, host.id, mode);
  return {
    mode: switched.mode,
    changed: switched.changed,
    restored: switched.restored,
    notRestored: switched.notRestored,
  };
}
