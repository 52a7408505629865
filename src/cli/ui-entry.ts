// `relm` with no arguments at a terminal: the most common start, so it skips the command-line parser
// (commander and every command's wiring, ~40 ms of loading) and opens the terminal UI directly. Any
// argument, a pipe, TERM=dumb or RELM_NO_TUI goes through dispatch.ts as before (main.ts decides).
import { keepKeysPrivate } from "../host/private-keys.js";
import { runTui } from "../tui/main.js";
import { reportEntryError } from "./entry-error.js";
import { registerSlashCommands } from "./slash-commands.js";

export async function mainUi(): Promise<number> {
  // Before anything reads a key or starts a process: keys out of this process's /proc/PID/environ.
  keepKeysPrivate();
  registerSlashCommands();
  const io = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
  try {
    // The same flags commander gives `relm` with no options (its repeatable options start empty).
    return await runTui({}, { var: [], passEnv: [] }, io);
  } catch (error) {
    return reportEntryError(error);
  }
}
