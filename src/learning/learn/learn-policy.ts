// When a running session reviews its own work (a learning pass), and whether it can afford to. Pure
// decisions, no model and no files: learn.ts runs the passes these allow.

import type { BudgetLimits } from "../../agent/budget/budget.js";
import type { GateResult } from "../../agent/gates/gates.js";
import type { LearnBudget } from "../../config/learn-config.js";
import type { ModelRequest, Price } from "../../llm/types.js";
import type { SpendRecord } from "../../session/types.js";
import { REFINE_ANSWER_TOKENS } from "../refine/refine-call.js";

export type LearnTrigger = "compaction" | "every_turns" | "gate_failure";

/**
 * The refine model's answer is capped at this many tokens, so a pass's cost is bounded before it starts:
 * sent with the request, and kept by relm as it reads (refine-call.ts), whatever the server does with it.
 */
export const LEARN_OUTPUT_TOKENS = REFINE_ANSWER_TOKENS;
/** How long a pass is assumed to take before one has been timed (for --max-time). */
export const FIRST_PASS_MS = 60_000;

/** What a streak reads of a gate's result (a gate_run event's results have it too). */
export type GateOutcome = Pick<GateResult, "command" | "exitCode" | "passed" | "timedOut" | "output">;

/**
 * A gate failure as comparable text: the command, how it ended and its output with what changes from run
 * to run anyway (durations, addresses, line and process numbers) blanked, so "the same failure" means the
 * same message, not the same bytes.
 */
export function failureSignature(r: GateOutcome): string {
  const output = r.output
    .replace(/0x[0-9a-f]+/gi, "0x#")
    .replace(/\d+(\.\d+)?/g, "#")
    .replace(/\s+/g, " ")
    .trim();
  return `${r.command}\0${r.timedOut ? "timeout" : String(r.exitCode)}\0${output}`;
}

/** A run of identical gate failures: the failing command, and the gate_run events that showed it. */
interface FailureStreak {
  count: number;
  command?: string;
  events: number[];
}

/**
 * Counts gate runs in a row whose first failing gate failed the same way (same command, same failure
 * signature), whatever the agent changed in between: the lesson is missing, not the effort.
 */
export class GateFailureStreak {
  private signature: string | undefined;
  private streak: FailureStreak = { count: 0, events: [] };

  record(run: { results: readonly GateOutcome[] }, event?: number): FailureStreak {
    const failed = run.results.find((r) => !r.passed);
    if (!failed) {
      this.signature = undefined;
      this.streak = { count: 0, events: [] };
      return this.streak;
    }
    const signature = failureSignature(failed);
    const events = event === undefined ? [] : [event];
    this.streak =
      signature === this.signature
        ? {
            count: this.streak.count + 1,
            command: failed.command,
            events: [...this.streak.events, ...events],
          }
        : { count: 1, command: failed.command, events };
    this.signature = signature;
    return this.streak;
  }
}

/** A pass by count: `everyTurns` model calls of the session since the last pass (0: never). */
export function dueByTurns(everyTurns: number, turns: number, lastPassTurn: number): boolean {
  return everyTurns > 0 && turns - lastPassTurn >= everyTurns;
}

/** A pass for a gate: exactly when the streak reaches the threshold (once per streak, 0: never). */
export function dueByGate(onGateFailure: number, streak: FailureStreak): boolean {
  return onGateFailure > 0 && streak.count === onGateFailure;
}

/** Tokens and US dollars spent (a cost stays unknown, null, once any part of it is). */
export type Spend = { tokens: number; cost: number | null };

/** What a pass is expected to cost at most: the request as sent, the capped answer, its price. */
export interface PassEstimate extends Spend {
  durationMs: number;
}

export function estimatePass(request: ModelRequest, price: Price | null, durationMs: number): PassEstimate {
  // The request body's size / 4 over-counts slightly for prose and JSON: the safe side of a budget.
  const input = Math.ceil(JSON.stringify(request).length / 4);
  const output = request.maxOutputTokens ?? LEARN_OUTPUT_TOKENS;
  const cost = price ? (input * price.input + output * price.output) / 1e6 : null;
  return { tokens: input + output, cost, durationMs };
}

/** Two calls of one pass as one estimate (the first call's time covers the pass). */
export function addEstimates(a: PassEstimate, b: PassEstimate): PassEstimate {
  return { ...addSpend(a, b), durationMs: a.durationMs + b.durationMs };
}

/** Learning's spend with `more` added (unknown cost stays unknown). */
export function addSpend(spent: Spend, more: Spend): Spend {
  const cost = spent.cost === null || more.cost === null ? null : spent.cost + more.cost;
  return { tokens: spent.tokens + more.tokens, cost };
}

/** What the session may still spend, and what its learning has spent so far. */
export interface LearnLedger {
  limits: BudgetLimits;
  /** The session tree's spend so far (its budget). */
  spent: SpendRecord;
  /** What earlier passes of this session spent (counted in `spent` too). */
  learned: Spend;
  budget: LearnBudget;
  /**
   * This pass's calls made already (the proposal, by its estimate, when its relevance check is next):
   * learning's cap covers the whole pass, while the session's spend already holds what they spent.
   */
  earlier?: PassEstimate;
}

function usd(n: number): string {
  return `$${n.toFixed(4)}`;
}

/**
 * Why a pass with this estimate must not start, or undefined when every budget covers it: what is left
 * of each session limit, and learning's own cap (learn.budget: a share of each set limit and absolute
 * tokens / USD). A pass is not a turn of the agent (like llm()), so --max-turns does not count it, but
 * a session with no turn left has no use for a lesson.
 */
export function budgetRefusal(estimate: PassEstimate, ledger: LearnLedger): string | undefined {
  const { limits, spent, learned, budget } = ledger;
  const pass = ledger.earlier ? addEstimates(ledger.earlier, estimate) : estimate;
  if (limits.maxTurns !== undefined && spent.turns >= limits.maxTurns)
    return `no model call is left under --max-turns (${spent.turns} of ${limits.maxTurns}) to use a lesson`;
  if (limits.maxTokens !== undefined) {
    const left = limits.maxTokens - spent.tokens;
    if (estimate.tokens > left)
      return `the pass needs up to ${estimate.tokens} tokens; ${Math.max(0, left)} of --max-tokens ${limits.maxTokens} are left`;
  }
  if (limits.maxTimeMs !== undefined) {
    const left = limits.maxTimeMs - spent.elapsedMs;
    if (estimate.durationMs > left)
      return `the pass may take ${Math.ceil(estimate.durationMs / 1000)} s; ${Math.max(0, Math.floor(left / 1000))} s of --max-time are left`;
  }
  if (limits.maxCost !== undefined) {
    if (estimate.cost === null) return "the refine model's price is unknown, so --max-cost could not be kept";
    if (spent.cost === null) return "the session's cost is unknown, so --max-cost could not be kept";
    const left = limits.maxCost - spent.cost;
    if (estimate.cost > left)
      return `the pass may cost ${usd(estimate.cost)}; ${usd(Math.max(0, left))} of --max-cost are left`;
  }
  const tokenCaps = [
    budget.tokens,
    limits.maxTokens === undefined ? undefined : Math.floor(limits.maxTokens * budget.share),
  ].filter((n): n is number => n !== undefined);
  if (tokenCaps.length > 0) {
    const cap = Math.min(...tokenCaps);
    if (learned.tokens + pass.tokens > cap)
      return `learning's budget: ${learned.tokens} tokens spent, the pass needs up to ${pass.tokens}, the cap is ${cap} (learn.budget)`;
  }
  const costCaps = [
    budget.cost,
    limits.maxCost === undefined ? undefined : limits.maxCost * budget.share,
  ].filter((n): n is number => n !== undefined);
  if (costCaps.length > 0) {
    const cap = Math.min(...costCaps);
    if (pass.cost === null || learned.cost === null)
      return `the refine model's price is unknown, so learning's cost cap of ${usd(cap)} could not be kept`;
    if (learned.cost + pass.cost > cap)
      return `learning's budget: ${usd(learned.cost)} spent, the pass may cost ${usd(pass.cost)}, the cap is ${usd(cap)} (learn.budget)`;
  }
  return undefined;
}
