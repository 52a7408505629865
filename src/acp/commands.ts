// relm's slash commands in an editor: the command table's (src/commands/) that ACP offers, published as
// available commands, and the context they run with here — every reply one agent message, a long text
// as lines of it. Nobody can answer a question here, so commands that ask are not offered (the table
// says which).
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import { commandFolders, loadCustomCommands, withCustom } from "../commands/custom.js";
import { commandsFor, findCommand, splitCommandLine } from "../commands/table.js";
import type { CommandContext, SlashCommand } from "../commands/types.js";
import type { HostCall } from "../host/protocol.js";

/** The commands ACP offers in `cwd`: the table's, then the project's and the person's custom ones. */
export function acpCommands(cwd: string, home: string): SlashCommand[] {
  return withCustom(commandsFor("acp"), loadCustomCommands(commandFolders(cwd, home)));
}

/** What session/update's available_commands_update lists. */
export function availableCommands(cwd: string, home: string): AvailableCommand[] {
  return acpCommands(cwd, home).map((c) => ({
    name: c.name,
    description: c.description,
    ...(c.args ? { input: { hint: c.args } } : {}),
  }));
}

/** True when `text` is `/name …` for a command ACP offers; anything else is a message for the model. */
export function isCommand(text: string): boolean {
  const split = splitCommandLine(text);
  return split !== undefined && findCommand(commandsFor("acp"), split.name) !== undefined;
}

/** The commands' context in an editor: replies are gathered into one message. */
export function acpContext(call: HostCall, replies: string[]): CommandContext {
  return {
    call,
    // The session's host is started before a command runs (AcpSession.command).
    live: async () => true,
    busy: false,
    // The editor is shown plans and tool calls, not the goal, compaction or undo lines.
    showsEvents: false,
    say: (text) => void replies.push(text),
    show: async (_title, lines) => void replies.push(lines.join("\n")),
    confirm: async () => false,
  };
}
