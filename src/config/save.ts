import { chmodSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { ConfigFile } from "./config.js";
import { makeDirs } from "./dirs.js";

/**
 * Writes $RELM_HOME/config.json atomically and readable by the user only (it may hold an API key): a
 * temporary file created 0600 beside it, renamed over it, so no moment exists where the key is in a file
 * others can read or the config is half-written.
 */
export function writeConfigFile(path: string, config: ConfigFile): void {
  makeDirs(dirname(path), 0o700);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}
