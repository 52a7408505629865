// `relm agents` and `relm agents --json`, the most frequent look at what runs: like bare `relm`
// (ui-entry.ts) they skip the command-line parser and every command's wiring, and load only the listing
// (main.ts routes them here; anything else on the line goes through dispatch.ts as before).
import { agentsAction } from "./agents-list.js";

export async function mainAgents(json: boolean): Promise<number> {
  try {
    return await agentsAction({ env: process.env, stdout: process.stdout }, { json });
  } catch (error) {
    const [{ reportError }, { relmHomeFrom }] = await Promise.all([
      import("./report-error.js"),
      import("../config/home.js"),
    ]);
    return reportError(error, process.stderr, relmHomeFrom(process.env));
  }
}
