import type { CommandSpec } from "./app-api.js";
import type { Theme } from "./theme.js";

const KEYS: [string, string][] = [
  ["enter", "send (a message typed while the agent works is queued for its next step)"],
  ["shift+enter, alt+enter", "new line"],
  ["esc", "interrupt the agent and cancel its running sub-agents"],
  ["ctrl+c", "interrupt; clear the input; twice on an empty input: quit"],
  ["ctrl+d", "quit (on an empty input); the session is saved"],
  ["ctrl+b", "detach (on an empty input): the session keeps running in the background"],
  ["ctrl+t", "select a sub-agent: enter opens its transcript, m messages it, c cancels it"],
  ["ctrl+o", "show cell outputs in full / folded"],
  ["ctrl+r", "search this directory's input history"],
  ["↑ ↓", "input history"],
  ["@", "complete a file of the project"],
  ["tab", "complete a command or a path"],
  ["paste", "over 2,000 characters becomes a kernel variable (paste_1…) instead of prompt text"],
];

export function helpLines(commands: CommandSpec[], t: Theme): string[] {
  const lines = [t.c.bold("Commands")];
  const width = Math.max(...commands.map((c) => `/${c.name} ${c.args ?? ""}`.length));
  for (const c of commands)
    lines.push(`  ${`/${c.name} ${c.args ?? ""}`.padEnd(width)}  ${t.dim(c.description)}`);
  lines.push("", t.c.bold("Keys"));
  const kw = Math.max(...KEYS.map(([k]) => k.length));
  for (const [k, d] of KEYS) lines.push(`  ${k.padEnd(kw)}  ${t.dim(d)}`);
  lines.push(
    "",
    t.dim(
      'Arguments are read like a shell\'s: /autonomous on "npm test" is one gate. Start a message with // to send a literal /.',
    ),
    t.dim("Leave with ctrl+d (saved; relm --continue reopens it) or ctrl+b (keeps running; relm attach ID)."),
  );
  return lines;
}
