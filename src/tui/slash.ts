// Slash commands: the palette's entries (name, arguments, one line each) and what each one does. Every
// command that changes the session goes through the session host, so it is journaled like the rest.
import type { SlashCommand } from "@mariozechner/pi-tui";
import type { AppApi, CommandSpec } from "./app-api.js";

export type { CommandSpec };

import { ArgumentSyntaxError, shellWords } from "./shell-words.js";
import { sessionCommands } from "./slash-session.js";
import { workCommands } from "./slash-work.js";

export function allCommands(): CommandSpec[] {
  return [...sessionCommands(), ...workCommands()];
}

/** The palette's entries, for the editor's completion. */
export function paletteEntries(commands: CommandSpec[]): SlashCommand[] {
  return commands.map((c) => ({ name: c.name, description: c.description, argumentHint: c.args }));
}

/** Runs `/name args…` (arguments parsed like a shell's, quotes removed). */
export async function runSlash(api: AppApi, commands: CommandSpec[], line: string): Promise<void> {
  const body = line.slice(1);
  const space = body.search(/\s/);
  const name = (space === -1 ? body : body.slice(0, space)).toLowerCase();
  const raw = space === -1 ? "" : body.slice(space + 1).trim();
  const command = commands.find((c) => c.name === name || (name === "exit" && c.name === "quit"));
  if (!command) {
    const close = commands.filter((c) => c.name.startsWith(name.slice(0, 2))).map((c) => `/${c.name}`);
    api.note(
      api.theme.warn(
        `unknown command /${name}${close.length > 0 ? ` — did you mean ${close.slice(0, 3).join(", ")}?` : ""} (/help lists them)`,
      ),
    );
    return;
  }
  let args: string[];
  try {
    args = shellWords(raw);
  } catch (error) {
    if (!(error instanceof ArgumentSyntaxError)) throw error;
    api.note(api.theme.warn(`/${command.name}: ${error.message} in "${raw}"`));
    return;
  }
  try {
    await command.run(api, args, raw);
  } catch (error) {
    api.note(api.theme.error(`/${command.name}: ${(error as Error).message}`));
  }
}
