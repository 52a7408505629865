// The session options of a front end that starts session hosts itself (`relm acp`, `relm mcp serve`):
// checked as it starts, and handed to each host it starts as that host's spec (the host checks them
// again as it starts).
import type { BudgetLimits } from "../agent/budget/budget.js";
import { UsageError } from "../config/errors.js";
import { checkNumbers, numberOf, type SessionSpec } from "../config/options.js";
import { inheritedSpec } from "../config/session-spec.js";
import { checkSessionFiles } from "../mcp/index.js";

/**
 * `budgets: false` leaves the budget flags out (the MCP server caps each task itself). No --var (each
 * task gives its own) and no per-task flags (config/options.ts says which those are).
 */
export function hostSpecOf(flags: SessionSpec, cwd: string, options: { budgets: boolean }): SessionSpec {
  return inheritedSpec(flags, cwd, { budgets: options.budgets, variables: false, task: false });
}

/** The budget flags' values (checked; a bad one is a usage error before anything starts). */
export function limitsOf(flags: SessionSpec): BudgetLimits {
  return {
    maxTurns: numberOf(flags, "maxTurns"),
    maxTokens: numberOf(flags, "maxTokens"),
    maxTimeMs: numberOf(flags, "maxTime"),
    maxCost: numberOf(flags, "maxCost"),
  };
}

/**
 * Every flag checked here, without loading the agent (the hosts check them again): a mistake in an
 * editor's or MCP client's configuration shows when it starts relm, not at the first task.
 */
export function checkHostFlags(flags: SessionSpec): void {
  if ((flags.var ?? []).length > 0)
    throw new UsageError("--var applies to one task: give variables with each");
  checkNumbers(flags);
  checkSessionFiles(flags.mcpConfig ?? []);
}
