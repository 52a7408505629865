// `relm agents [--all] [--json]`, the most frequent look at what runs: like bare `relm`
// (ui-entry.ts) they skip the command-line parser and every command's wiring, and load only the listing
// (main.ts routes them here; anything else on the line goes through dispatch.ts as before).
import { reportEntryError } from "./entry-error.js";
import { agentsAction } from "./sessions/agents-list.js";

export async function mainAgents(flags: { json: boolean; all: boolean }): Promise<number> {
  try {
    return await agentsAction({ env: process.env, stdout: process.stdout }, flags);
  } catch (error) {
    return reportEntryError(error);
  }
}
