import type { ConfigFile } from "./config.js";
import { writePrivateJson } from "./private-file.js";

/**
 * Writes $RELM_HOME/config.json atomically and readable by the user only (it may hold an API key): a
 * temporary file created 0600 beside it, renamed over it, so no moment exists where the key is in a file
 * others can read or the config is half-written.
 */
export function writeConfigFile(path: string, config: ConfigFile): void {
  writePrivateJson(path, config);
}
