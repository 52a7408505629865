// The one table of slash commands: relm's own, and those a plugin contributes (learning's /refine and
// /learn, registered by the composition root, src/cli/slash-commands.ts). The terminal UI's palette and
// /help, ACP's available_commands and line mode's /help and dispatch all read it.
import { SESSION_COMMANDS } from "./session.js";
import type { FrontEnd, SlashCommand } from "./types.js";
import { WORK_COMMANDS } from "./work.js";

const registered: SlashCommand[] = [];

/** Adds a plugin's commands to the table (again under the same name: replaced). */
export function registerCommands(commands: readonly SlashCommand[]): void {
  for (const command of commands) {
    const at = registered.findIndex((c) => c.name === command.name);
    if (at >= 0) registered.splice(at, 1);
    registered.push(command);
  }
}

/** Every command, relm's own first. */
export function allCommands(): SlashCommand[] {
  const own = [...SESSION_COMMANDS, ...WORK_COMMANDS];
  return [...own, ...registered.filter((r) => !own.some((c) => c.name === r.name))];
}

/** The commands `frontEnd` offers, in the table's order. */
export function commandsFor(frontEnd: FrontEnd): SlashCommand[] {
  return allCommands().filter((c) => !c.in || c.in.includes(frontEnd));
}

/** The command called `name` (or by an alias) among `commands`. */
export function findCommand(commands: readonly SlashCommand[], name: string): SlashCommand | undefined {
  const wanted = name.toLowerCase();
  return commands.find((c) => c.name === wanted || c.aliases?.includes(wanted));
}

/** `/name args` split: the name (lower case) and the rest; undefined when the text is no command. */
export function splitCommandLine(text: string): { name: string; rest: string } | undefined {
  const match = /^\/([^\s/]\S*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  return { name: (match[1] as string).toLowerCase(), rest: (match[2] ?? "").trim() };
}

/** What is said for a command this front end does not have. */
export function unknownCommand(name: string, commands: readonly SlashCommand[]): string {
  const close = commands.filter((c) => c.name.startsWith(name.slice(0, 2))).map((c) => `/${c.name}`);
  const hint = close.length > 0 ? ` — did you mean ${close.slice(0, 3).join(", ")}?` : "";
  return `unknown command /${name}${hint} (/help lists them)`;
}

/** /help's rows: the command with its arguments, and its line. */
export function helpRows(commands: readonly SlashCommand[]): [string, string][] {
  return commands.map((c) => [`/${c.name}${c.args ? ` ${c.args}` : ""}`, c.description]);
}
