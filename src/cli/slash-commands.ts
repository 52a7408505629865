// The composition root of the slash command table: relm's own commands are in src/commands/; plugins
// add theirs here (learning's /refine and /learn). Every front end's entry calls this before it reads
// the table (the terminal UI, ACP, line mode).
import { registerCommands } from "../commands/table.js";
import { LEARNING_COMMANDS } from "../learning/commands/slash-commands.js";

export function registerSlashCommands(): void {
  registerCommands(LEARNING_COMMANDS);
}
