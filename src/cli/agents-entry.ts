// `relm agents [--all] [--json]`, the most frequent look at what runs: like bare `relm`
// (ui-entry.ts) they skip the command-line parser and every command's wiring, and load only the listing
// (main.ts routes them here; anything else on the line goes through dispatch.ts as before).
import { agentsAction } from "./sessions/agents-list.js";

export async function mainAgents(flags: { json: boolean; all: boolean }): Promise<number> {
  try {
    return await agentsAction({ env: process.env, stdout: process.stdout }, flags);
  } catch (error) {
    // Named through a variable so the bundler leaves the error path out of dist/cli/agents.js: it loads
    // tsc's own modules beside it, only when something went wrong.
    const modules = ["./report-error.js", "../config/home.js"];
    const [{ reportError }, { relmHomeFrom }] = (await Promise.all(modules.map((m) => import(m)))) as [
      typeof import("./report-error.js"),
      typeof import("../config/home.js"),
    ];
    return reportError(error, process.stderr, relmHomeFrom(process.env));
  }
}
