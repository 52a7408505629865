import { formatDuration } from "../../config/duration.js";
import { costWord } from "../../config/money.js";
import type { SpendRecord } from "../../session/types.js";

export interface BudgetLimits {
  /** Model calls. */
  maxTurns?: number;
  /** Input + output tokens over all model calls. */
  maxTokens?: number;
  maxTimeMs?: number;
  /** USD */
  maxCost?: number;
}

export interface BudgetStop {
  budget: "max-turns" | "max-tokens" | "max-time" | "max-cost";
  limit: number;
  spent: SpendRecord;
  message: string;
}

/**
 * Spend so far against the user's limits. Checked before every model call and failing closed: a limit
 * that is reached stops the next call, so a budget is never exceeded by more than the calls in flight.
 * Budgets form a tree: a child agent's spend is also its parent's, up to the root, and a child may call
 * the model only while every budget above it allows it.
 */
export class Budget {
  private turns = 0;
  private tokens = 0;
  private cost: number | null = 0;
  private readonly startedAt: number;
  /** Tokens held by requests in flight here and below (their prompt plus the answer they may have). */
  private reserved = 0;
  /** USD held by requests in flight here and below: what their prompt and their capped answer may cost. */
  private reservedCost = 0;
  /** Callers waiting for a reservation to be given back (kept on the root, which every one reaches). */
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly limits: BudgetLimits,
    private readonly parent?: Budget,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
  }

  /**
   * What the session spent before this process took it over (its journals, at a resume): budgets are
   * the session's, not one host's, so a revived host does not start from zero. Time is not carried:
   * --max-time runs from the resume (docs/budgets.md).
   */
  carry(before: { turns: number; tokens: number; cost: number | null }): void {
    this.turns += before.turns;
    this.addSpend(before.tokens, before.cost);
  }

  /** A budget for a child agent: its own limits, inside this one's. */
  child(limits: BudgetLimits = {}): Budget {
    return new Budget(limits, this, this.now);
  }

  /** One model call by this agent; its tokens and cost also count for every agent above it. */
  recordCall(tokens: number, cost: number | null): void {
    this.turns += 1;
    this.addSpend(tokens, cost);
  }

  /** Spend that is not one of this agent's turns (llm() calls, children's calls). */
  addSpend(tokens: number, cost: number | null): void {
    this.tokens += tokens;
    this.cost = cost === null || this.cost === null ? null : this.cost + cost;
    this.parent?.addSpend(tokens, cost);
  }

  spent(): SpendRecord {
    return {
      turns: this.turns,
      tokens: this.tokens,
      elapsedMs: this.now() - this.startedAt,
      cost: this.cost,
    };
  }

  /** Epoch ms (on this budget's clock) at which the first --max-time here or above runs out. */
  deadline(): number | undefined {
    const own = this.limits.maxTimeMs === undefined ? undefined : this.startedAt + this.limits.maxTimeMs;
    return smaller(own, this.parent?.deadline());
  }

  /** Milliseconds to the deadline (0 once passed), or undefined without a time limit. */
  timeLeftMs(): number | undefined {
    const deadline = this.deadline();
    return deadline === undefined ? undefined : Math.max(0, deadline - this.now());
  }

  /**
   * Tokens still allowed here and above, or undefined without a token limit. Unless `inFlight` is
   * false, what requests in flight have reserved counts as spent.
   */
  tokensLeft(inFlight = true): number | undefined {
    const { maxTokens } = this.limits;
    const own =
      maxTokens === undefined ? undefined : maxTokens - this.tokens - (inFlight ? this.reserved : 0);
    return smaller(own, this.parent?.tokensLeft(inFlight));
  }

  /**
   * USD still allowed here and above, or undefined without a cost limit (0 once a cost is unknown).
   * Unless `inFlight` is false, what requests in flight have reserved counts as spent.
   */
  costLeft(inFlight = true): number | undefined {
    const { maxCost } = this.limits;
    const own =
      maxCost === undefined
        ? undefined
        : this.cost === null
          ? 0
          : maxCost - this.cost - (inFlight ? this.reservedCost : 0);
    return smaller(own, this.parent?.costLeft(inFlight));
  }

  /**
   * Holds `tokens` (and `cost` USD) for a request in flight, here and above, so concurrent requests of
   * the tree cannot together ask for more than is left. Returns the release; call it after the spend is
   * recorded.
   */
  reserve(tokens: number, cost = 0): () => void {
    const held = Math.max(0, tokens);
    const heldCost = Math.max(0, cost);
    for (let b: Budget | undefined = this; b; b = b.parent) {
      b.reserved += held;
      b.reservedCost += heldCost;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (let b: Budget | undefined = this; b; b = b.parent) {
        b.reserved -= held;
        b.reservedCost -= heldCost;
      }
      const waiters = [...this.root.waiters];
      this.root.waiters.clear();
      for (const wake of waiters) wake();
    };
  }

  /** Resolves when a reservation anywhere in the tree is released, or when `signal` aborts. */
  released(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const wake = () => {
        signal?.removeEventListener("abort", wake);
        this.root.waiters.delete(wake);
        resolve();
      };
      this.root.waiters.add(wake);
      signal?.addEventListener("abort", wake, { once: true });
    });
  }

  private get root(): Budget {
    return this.parent ? this.parent.root : this;
  }

  /**
   * The --max-tokens stop of the tightest token limit here or above, though it is not reached yet:
   * `why` says what the tokens left cannot cover.
   */
  tokenStop(why: string): BudgetStop | undefined {
    const t = this.tightest("maxTokens", (b, max) => max - b.tokens);
    if (!t) return undefined;
    const used = `${t.spent.tokens} of ${t.limit} tokens used`;
    return t.level.stop("max-tokens", t.limit, t.spent, `${used}; ${why}`);
  }

  /**
   * The --max-cost stop of the tightest cost limit here or above, though it is not reached yet: `why`
   * says what the money left cannot cover.
   */
  costStop(why: string): BudgetStop | undefined {
    const t = this.tightest("maxCost", (b, max) => max - (b.cost ?? Number.POSITIVE_INFINITY));
    if (!t) return undefined;
    const used = `${usd(t.spent.cost)} of $${t.limit.toFixed(2)} spent`;
    return t.level.stop("max-cost", t.limit, t.spent, `${used}; ${why}`);
  }

  /**
   * The first token or cost limit here or above that `tokens` and `cost` more than is recorded would go
   * past: a request in flight whose spend so far (estimated as it streams) says it must be stopped.
   */
  overrun(tokens: number, cost: number): BudgetStop | undefined {
    for (let b: Budget | undefined = this; b; b = b.parent) {
      const { maxTokens, maxCost } = b.limits;
      if (maxTokens !== undefined && b.tokens + tokens > maxTokens) {
        const spent = { ...b.spent(), tokens: b.tokens + tokens };
        const detail = `about ${spent.tokens} of ${maxTokens} tokens used; the answer was stopped as it streamed`;
        return b.stop("max-tokens", maxTokens, spent, detail);
      }
      if (maxCost !== undefined && b.cost !== null && b.cost + cost > maxCost) {
        const spent = { ...b.spent(), cost: b.cost + cost };
        const detail = `about ${usd(spent.cost)} of $${maxCost.toFixed(2)} spent; the answer was stopped as it streamed`;
        return b.stop("max-cost", maxCost, spent, detail);
      }
    }
    return undefined;
  }

  /**
   * The --max-time stop of the earliest deadline here or above: for a deadline a timer saw pass, or,
   * with `why`, for time left that cannot cover what comes next.
   */
  timeStop(why?: string): BudgetStop | undefined {
    const t = this.tightest("maxTimeMs", (b, max) => b.startedAt + max);
    if (!t) return undefined;
    const { level, limit, spent } = t;
    // A timer may fire a moment before the clock agrees.
    if (!why) spent.elapsedMs = Math.max(spent.elapsedMs, limit);
    const used = `${formatDuration(spent.elapsedMs)} of ${formatDuration(limit)} used`;
    return level.stop("max-time", limit, spent, why ? `${used}; ${why}` : used);
  }

  /** The level here or above with a `key` limit whose `measure` is smallest: that limit and its spend. */
  private tightest(
    key: "maxTokens" | "maxCost" | "maxTimeMs",
    measure: (b: Budget, limit: number) => number,
  ): { level: Budget; limit: number; spent: SpendRecord } | undefined {
    let best: { level: Budget; limit: number; measured: number } | undefined;
    for (let b: Budget | undefined = this; b; b = b.parent) {
      const limit = b.limits[key];
      if (limit === undefined) continue;
      const measured = measure(b, limit);
      if (!best || measured < best.measured) best = { level: b, limit, measured };
    }
    return best && { level: best.level, limit: best.limit, spent: best.level.spent() };
  }

  /** The first limit already reached here or above, or undefined when another model call is allowed. */
  check(): BudgetStop | undefined {
    return this.parent?.checkShared() ?? this.checkOwn(true);
  }

  /** Turns are each agent's own; tokens, time and cost limits hold for the whole tree below. */
  private checkShared(): BudgetStop | undefined {
    return this.parent?.checkShared() ?? this.checkOwn(false);
  }

  private checkOwn(withTurns: boolean): BudgetStop | undefined {
    const spent = this.spent();
    const { maxTurns, maxTokens, maxTimeMs, maxCost } = this.limits;
    if (withTurns && maxTurns !== undefined && spent.turns >= maxTurns) {
      return this.stop("max-turns", maxTurns, spent, `${spent.turns} of ${maxTurns} model calls used`);
    }
    if (maxTokens !== undefined && spent.tokens >= maxTokens) {
      return this.stop("max-tokens", maxTokens, spent, `${spent.tokens} of ${maxTokens} tokens used`);
    }
    if (maxTimeMs !== undefined && spent.elapsedMs >= maxTimeMs) {
      const used = `${formatDuration(spent.elapsedMs)} of ${formatDuration(maxTimeMs)}`;
      return this.stop("max-time", maxTimeMs, spent, `${used} used`);
    }
    if (maxCost !== undefined) {
      // Unknown prices cannot prove we are under the limit, so an unknown cost stops the run.
      if (spent.cost === null) {
        return this.stop(
          "max-cost",
          maxCost,
          spent,
          "this model is unpriced (add its prices to config.json), so --max-cost cannot be kept",
        );
      }
      if (spent.cost >= maxCost) {
        const used = `${usd(spent.cost)} of $${maxCost.toFixed(2)}`;
        return this.stop("max-cost", maxCost, spent, `${used} spent`);
      }
    }
    return undefined;
  }

  private stop(budget: BudgetStop["budget"], limit: number, spent: SpendRecord, detail: string): BudgetStop {
    return { budget, limit, spent, message: `budget exhausted: --${budget} (${detail})` };
  }
}

/**
 * The spend in a --max-cost message, always to the hundredth of a cent: set against the limit (and the
 * next request's worst case) it must not round to the limit's own figure. Everywhere else a cost is
 * worded by costWord (config/money.ts), as here in describeSpend.
 */
function usd(cost: number | null): string {
  return cost === null ? "unpriced" : `$${cost.toFixed(4)}`;
}

/** The smaller of two optional limits (undefined: none). */
export function smaller(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

// Made once: toLocaleString builds a formatter per call (~0.4 ms; `relm run` says each child's spend).
const THOUSANDS = new Intl.NumberFormat("en-US");

export function describeSpend(spent: SpendRecord): string {
  const calls = `${spent.turns} model call${spent.turns === 1 ? "" : "s"}`;
  return `${calls}, ${THOUSANDS.format(spent.tokens)} tokens, ${formatDuration(spent.elapsedMs)}, ${costWord(spent.cost)}`;
}

/**
 * Where a person asks to go on past a budget stop, which decides the step that works from there:
 * `live` a shell while the session's host runs (`relm send`), `ended` a shell after the run ended,
 * `attached` inside line mode or the terminal UI, which is left first and then resumed as it was.
 */
type GoOnFrom = "live" | "ended" | "attached";

/**
 * The one wording of how to go on past `stop`. Budgets hold across resumes (what was spent still counts),
 * so going on needs the limit raised; not --max-time, which starts again at the resume. `stop` may be a
 * journaled one (its budget read back as a string).
 */
export function goOnPastBudget(id: string, stop: { budget: string }, from: GoOnFrom): string {
  const raised = stop.budget === "max-time" ? "" : ` --${stop.budget} HIGHER`;
  if (from === "attached") return `/quit, then relm --resume ${id}${raised}`;
  if (from === "ended")
    return `relm run --resume ${id}${raised}${raised ? " (what it spent still counts)" : ""}`;
  return `relm stop ${id}, then relm run --resume ${id}${raised} "your message"`;
}

/** A message refused by a session out of budget (a turn would only stop), and how to go on `from` there. */
export function outOfBudgetRefusal(id: string, stop: BudgetStop, from: "live" | "attached"): string {
  const how = stop.budget === "max-time" ? "resume it" : "resume it with a higher limit";
  return (
    `session ${id} is out of budget, message not delivered: ${stop.message}; to go on, ${how}: ` +
    goOnPastBudget(id, stop, from)
  );
}
