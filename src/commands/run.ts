// Runs one typed `/name args…` line against the table, the same way in every front end: the command is
// looked up (aliases too), its arguments are read like a shell's, and a failure is said, never thrown.
import { describeFileError } from "../config/file-errors.js";
import { findCommand, splitCommandLine, unknownCommand } from "./table.js";
import type { CommandContext, SlashCommand } from "./types.js";
import { ArgumentSyntaxError, shellWords } from "./words.js";

/** A front end's own way of doing a command (its screen, its process), by the command's name. */
export type OwnCommands = Readonly<Record<string, (words: string[], raw: string) => Promise<void> | void>>;

/** Runs `line` (which starts with `/`) among `commands`; `own` does those the front end does itself. */
export async function runCommandLine(
  ctx: CommandContext,
  commands: readonly SlashCommand[],
  line: string,
  own: OwnCommands = {},
): Promise<void> {
  const { name, rest } = splitCommandLine(line) ?? { name: line.slice(1), rest: "" };
  const command = findCommand(commands, name);
  if (!command) {
    ctx.say(unknownCommand(name, commands), "warn");
    return;
  }
  let words: string[];
  try {
    words = shellWords(rest);
  } catch (error) {
    if (!(error instanceof ArgumentSyntaxError)) throw error;
    // The arguments are shown as typed, after a colon: quoting them would add quotes to a quote.
    ctx.say(
      `/${command.name}: ${error.message} in: ${rest} (close it, or write it as \\${error.quote})`,
      "warn",
    );
    return;
  }
  const ownRun = Object.hasOwn(own, command.name) ? own[command.name] : undefined;
  try {
    if (ownRun) await ownRun(words, rest);
    else if (command.run) await command.run(ctx, words);
    else ctx.say(`/${command.name} is not available here`, "warn");
  } catch (error) {
    const message = describeFileError(error) ?? (error as Error).message;
    // A host that quotes the command itself ("/heartbeat 0s: …") is not prefixed with its name again.
    ctx.say(message.startsWith(`/${command.name} `) ? message : `/${command.name}: ${message}`, "error");
  }
}
