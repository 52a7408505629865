// ctrl+p: the newest cell output the UI holds only part of, whole, in the user's pager ($PAGER, else
// `less -R`). The UI gives the terminal to the pager and draws itself again when the pager exits.
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { sessionDir } from "../../session/index.js";
import type { AppControl } from "../app-api.js";
import { runInTerminal } from "../input/external-editor.js";

export function pageFullOutput(app: AppControl): void {
  const found = app.lastFullOutput();
  const id = app.link.id;
  // Relative to the session's directory when the transcript was not told where that is.
  const file = found && !isAbsolute(found) && id ? join(sessionDir(app.home, id), found) : found;
  if (!file) {
    app.note(app.theme.dim("no cell output here was cut: ctrl+o shows outputs in full"));
    return;
  }
  if (!existsSync(file)) {
    app.note(
      app.theme.warn(
        `⚠ ${file} is not there (the session was moved or cleaned up); _out in the kernel still has it`,
      ),
    );
    return;
  }
  openInPager(app, file);
}

/** The terminal goes to the pager ($PAGER, else `less -R`) for `file`; the UI draws itself again after. */
export function openInPager(app: AppControl, file: string): void {
  const pager = app.env.PAGER?.trim() || "less -R";
  const run = runInTerminal(app, pager, file);
  app.tui.requestRender(true);
  if (run.error || (run.status !== 0 && run.status !== null))
    app.note(
      app.theme.warn(
        `⚠ the pager (${pager}) failed${run.error ? `: ${run.error.message}` : ` with status ${run.status}`}; the file is ${file}`,
      ),
    );
}
