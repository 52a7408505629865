// The session flags of a front end that starts session hosts itself (`relm acp`, `relm mcp serve`), as
// the command-line words each host it starts is given: the host checks them again as it starts.
import { existsSync } from "node:fs";
import type { BudgetLimits } from "../agent/budget.js";
import { parseTimeLimit } from "../config/duration.js";
import { UsageError } from "../config/errors.js";
import { hostArgsOf as sharedHostArgs } from "../host/host-args.js";
import type { SessionFlags } from "./setup.js";

export interface HostFlags extends SessionFlags {
  idleTimeout?: string;
}

/**
 * `budgets: false` leaves the budget flags out (the MCP server caps each task itself). No --var (each
 * task gives its own) and no per-task flags: the words come from host/host-args.ts, the one list.
 */
export function hostArgsOf(flags: HostFlags, options: { budgets: boolean }): string[] {
  return sharedHostArgs(flags, { budgets: options.budgets, variables: false, task: false });
}

function positive(value: string | undefined, flag: string, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.replace(/^\$/, ""));
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw new UsageError(`${flag} must be a positive ${integer ? "whole number" : "number"}, got "${value}"`);
  return n;
}

/** The budget flags' values (checked; a bad one is a usage error before anything starts). */
export function limitsOf(flags: HostFlags): BudgetLimits {
  return {
    maxTurns: positive(flags.maxTurns, "--max-turns", true),
    maxTokens: positive(flags.maxTokens, "--max-tokens", true),
    maxTimeMs: parseTimeLimit(flags.maxTime, "--max-time"),
    maxCost: positive(flags.maxCost, "--max-cost", false),
  };
}

/**
 * Every flag checked here, without loading the agent (the hosts check them again): a mistake in an
 * editor's or MCP client's configuration shows when it starts relm, not at the first task.
 */
export function checkHostFlags(flags: HostFlags): void {
  if ((flags.var ?? []).length > 0)
    throw new UsageError("--var applies to one task: give variables with each");
  limitsOf(flags);
  positive(flags.cellTimeout, "--cell-timeout", false);
  positive(flags.idleTimeout, "--idle-timeout", false);
  for (const file of flags.mcpConfig ?? [])
    if (!existsSync(file)) throw new UsageError(`--mcp-config ${file}: no such file`);
  if (flags.maxDepth !== undefined && !/^\d+$/.test(flags.maxDepth))
    throw new UsageError(`--max-depth must be a whole number of 0 or more, got "${flags.maxDepth}"`);
}
