import { visibleWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { helpRows } from "../commands/table.js";
import type { SlashCommand } from "../commands/types.js";
import type { Theme } from "./theme.js";

const KEYS: [string, string][] = [
  ["enter", "send (a message typed while the agent works is queued for its next step)"],
  ["shift+enter, alt+enter", "new line"],
  ["esc", "interrupt the agent and cancel its running sub-agents"],
  ["esc esc", "on an empty input: rewind to an earlier message (/rewind)"],
  ["ctrl+c", "interrupt; clear the input; twice on an empty input: quit"],
  ["ctrl+d", "quit (on an empty input); the session is saved"],
  ["ctrl+b", "detach (on an empty input): the session keeps running in the background"],
  ["ctrl+t", "select a sub-agent: enter opens its transcript, m messages it, c cancels it"],
  ["ctrl+o", "show cell outputs in full / folded"],
  ["ctrl+p", "open the newest cut cell output in full in the pager ($PAGER)"],
  ["shift+tab", "next permission mode: plan (read-only) → workspace (sandboxed) → full"],
  ["ctrl+r", "search this directory's input history"],
  ["ctrl+g", "edit the input in $EDITOR"],
  ["ctrl+v", "paste the clipboard's image (wl-paste or xclip); a dropped image file works too"],
  ["!command", "run a shell command in the session's kernel (the model reads it with your next message)"],
  ["↑ ↓", "input history"],
  ["@", "complete a file of the project"],
  ["tab", "complete a command or a path"],
  // The two markers a paste leaves in the input look alike; what each one sends is not.
  ["[paste #1 +12 lines]", "a long paste kept as prompt text: the model reads it in your message"],
  [
    "[kernel variable paste_1: …]",
    "a paste over 2,000 characters: put in the kernel as the variable paste_1; the model reads only its name and size",
  ],
];

/** Two columns at any width: the term, then its description wrapped under itself. */
function table(rows: [string, string][], width: number, t: Theme): string[] {
  const column = Math.min(30, Math.max(...rows.map(([k]) => visibleWidth(k))));
  const room = Math.max(20, width - column - 4);
  const out: string[] = [];
  for (const [term, description] of rows) {
    const wrapped = wrapTextWithAnsi(description, room);
    if (visibleWidth(term) > column) {
      out.push(`  ${term}`);
      for (const w of wrapped) out.push(`  ${" ".repeat(column)}  ${t.dim(w)}`);
      continue;
    }
    wrapped.forEach((w, i) => {
      out.push(`  ${(i === 0 ? term : "").padEnd(column)}  ${t.dim(w)}`);
    });
  }
  return out;
}

export function helpLines(commands: readonly SlashCommand[], t: Theme, width: number): string[] {
  return [
    t.c.bold("Commands"),
    ...table(helpRows(commands), width, t),
    "",
    t.c.bold("Keys"),
    ...table(KEYS, width, t),
    "",
    ...wrapTextWithAnsi(
      t.dim(
        'Arguments are read like a shell\'s: /autonomous on "npm test" is one gate. Start a message with // to send a literal /. ' +
          "Leave with ctrl+d (saved; relm --continue reopens it) or ctrl+b (keeps running; relm attach ID).",
      ),
      width,
    ),
  ];
}
