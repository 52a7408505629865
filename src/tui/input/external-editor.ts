// ctrl+g: the input in $VISUAL / $EDITOR (vi without either), as Claude Code and Codex do. The UI gives the
// terminal to the editor and takes it back; what the editor saved becomes the input (not sent).
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AppControl } from "../app-api.js";

/**
 * Runs `command` (a shell command line: $EDITOR and $PAGER may carry arguments) on `file`, its one
 * argument, with the terminal handed over to it. Synchronous on purpose: while it runs, nothing of the UI
 * may read the terminal or draw on it.
 */
export function runInTerminal(app: AppControl, command: string, file: string): SpawnSyncReturns<Buffer> {
  app.tui.stop();
  const run = spawnSync("/bin/sh", ["-c", `${command} "$1"`, "sh", file], { stdio: "inherit", env: app.env });
  app.tui.start();
  return run;
}

export function editInEditor(app: AppControl): void {
  const dir = mkdtempSync(join(tmpdir(), "relm-input-"));
  const file = join(dir, "message.md");
  try {
    writeFileSync(file, app.editor.getText(), { mode: 0o600 });
    // $VISUAL, then $EDITOR (either may carry arguments, `code --wait`), then vi.
    const command = app.env.VISUAL?.trim() || app.env.EDITOR?.trim() || "vi";
    const result = runInTerminal(app, command, file);
    if (result.error || result.status !== 0) {
      const why = result.error ? result.error.message : `exit status ${result.status}`;
      app.note(app.theme.warn(`${command}: ${why}; the input is unchanged`));
    } else app.editor.setText(readFileSync(file, "utf8").replace(/\n+$/, ""));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    app.tui.requestRender(true);
  }
}
