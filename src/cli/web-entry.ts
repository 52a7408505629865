// `relm web` with its usual flags (--port N, --host ADDR, --open): like bare `relm` (ui-entry.ts) and
// `relm agents` it skips the command-line parser and every command's wiring, and loads only the web
// server (dist/cli/web.js, one bundle of its own: scripts/bundle.mjs). main.ts routes it here; --help,
// a flag it does not know or one given twice go through dispatch.ts, which says what is wrong.
import { keepKeysPrivate } from "../host/private-keys.js";
import { runWeb, type WebFlags } from "../webui/run.js";
import { reportEntryError } from "./entry-error.js";

export async function mainWeb(flags: WebFlags): Promise<number> {
  // Before anything reads a key or starts a process (the page's actions may start a host): keys out of
  // this process's /proc/PID/environ, as dispatch.ts does for every other command.
  keepKeysPrivate();
  try {
    return await runWeb(flags, { stdout: process.stdout, stderr: process.stderr, env: process.env });
  } catch (error) {
    return reportEntryError(error);
  }
}
