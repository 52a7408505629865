// Commander's parse errors ("error: missing required argument 'id'") in relm's voice: one
// `relm: ...` line, then the usage of the command that failed and where to read more. Commander prints
// nothing itself (outputError is silenced in program.ts); each command's exit callback tags the error
// with the command it happened in, so the usage line is that command's.

import { type Command, CommanderError } from "commander";
import { closestCommand } from "./suggest.js";

/** A parse error and the command whose arguments or options were wrong. */
class CommandLineError extends CommanderError {
  constructor(
    readonly command: Command,
    error: CommanderError,
  ) {
    super(error.exitCode, error.code, error.message);
  }
}

function allCommands(root: Command): Command[] {
  return [root, ...root.commands.flatMap((c) => allCommands(c))];
}

/** The names a person may type after `relm` (or after a group such as `relm harness`). */
export function commandNames(cmd: Command): string[] {
  const visible = cmd
    .createHelp()
    .visibleCommands(cmd)
    .map((c) => c.name());
  return visible.includes("help") ? visible : [...visible, "help"];
}

function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/**
 * Tags every command's parse errors with the command, and makes a group called without its command
 * (`relm harness`) say so in relm's voice before commander's help.
 */
export function tagParseErrors(root: Command): void {
  for (const cmd of allCommands(root)) {
    cmd.exitOverride((error) => {
      throw new CommandLineError(cmd, error);
    });
    if (cmd.commands.length > 0) {
      cmd.addHelpText("before", ({ error }) => {
        if (!error) return "";
        return cmd.parent
          ? `relm: ${pathOf(cmd).replace(/^relm /, "")} needs one of its commands:`
          : "relm: no such command; these are relm's commands:";
      });
    }
  }
}

/** The quoted name in commander's message: `unknown command 'lgo'` → `lgo`. */
function quoted(message: string): string {
  return /'([^']*)'/.exec(message)?.[1] ?? "";
}

/** The text to print for a parse error; empty when commander already printed what was needed (help). */
export function describeParseError(error: CommanderError): string {
  const cmd = error instanceof CommandLineError ? error.command : undefined;
  if (error.code === "commander.help") return "";
  const path = cmd ? pathOf(cmd) : "relm";
  const usage = cmd ? `usage: ${path} ${cmd.usage()}\n` : "";
  const hint = `${path} --help for more\n`;
  const [first = "", ...rest] = error.message.replace(/^error: /, "").split("\n");
  let line: string;
  switch (error.code) {
    case "commander.unknownCommand": {
      const word = quoted(first);
      const group = path === "relm" ? "" : `${path.replace(/^relm /, "")} `;
      const meant = cmd ? closestCommand(word, commandNames(cmd)) : undefined;
      line = `unknown command "${group}${word}"${meant ? ` — did you mean "${group}${meant}"?` : ""}`;
      break;
    }
    case "commander.missingArgument":
      line = `missing argument <${quoted(first)}>`;
      break;
    default: {
      // Commander adds "(Did you mean --json?)" on a line of its own.
      const meant = /^\(Did you mean (.+)\?\)$/.exec(rest.join(" ").trim())?.[1];
      line = `${first.replace(/'([^']*)'/g, '"$1"').replace(/\.$/, "")}${meant ? ` — did you mean "${meant}"?` : ""}`;
    }
  }
  return `relm: ${line}\n${usage}${hint}`;
}
