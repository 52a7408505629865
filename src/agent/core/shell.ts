// `!command` typed by a person (the UI's input, line mode): a shell command run in the session's kernel
// between turns, shown like a cell and kept in the conversation, so the model's next turn reads what the
// person ran and what it printed — as Claude Code, Codex and pi do. It runs as the kernel's process, under
// the session's permission mode (docs/sandbox.md), never on the host beside it.
import type { CellResult } from "../../kernel/types.js";
import type { Message } from "../../llm/types.js";
import { userMessage } from "./tool.js";

/** Call ids of a person's shell cells: no model tool call answers them (resume.ts tells them apart). */
export const SHELL_CALL_PREFIX = "shell-";

/** How the journal shows the cell: the command as typed. */
export function shellCellCode(command: string): string {
  return `!${command}`;
}

/**
 * The Python the kernel runs: the command through /bin/sh with no stdin (the kernel's stdin is relm's
 * protocol pipe), its output captured like any cell's, a non-zero exit said on the last line. No name is
 * left in the kernel's namespace.
 */
export function shellPython(command: string): string {
  return [
    `__relm_rc = __import__("subprocess").run(${JSON.stringify(command)}, shell=True, stdin=__import__("subprocess").DEVNULL).returncode`,
    `if __relm_rc: print(f"[exit status {__relm_rc}]")`,
    "del __relm_rc",
  ].join("\n");
}

/** What the model reads of it at its next turn: a user-role note with the command and its output. */
export function shellMessage(code: string, result: Pick<CellResult, "output" | "note">): Message {
  const output = result.output.length > 0 ? result.output : "[no output]";
  const note = result.note ? `\n[relm] ${result.note}` : "";
  const text = `[the user ran a shell command in the kernel]\n${code}\n${output}${note}`;
  return userMessage(text);
}
