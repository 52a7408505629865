// Where relm keeps its files, with nothing else of the configuration: `relm agents` (cli/agents-entry.ts)
// needs only this, and config.ts (with its schema validator) costs ~10 ms to load.
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** $RELM_HOME (a leading ~ is expanded), or ~/.relm. config.ts re-exports it. */
export function relmHomeFrom(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.RELM_HOME?.trim();
  if (!configured) return join(homedir(), ".relm");
  if (configured === "~" || configured.startsWith("~/")) return join(homedir(), configured.slice(1));
  return resolve(configured);
}
