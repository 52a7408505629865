import { formatDuration } from "../config/duration.js";
import type { SpendRecord } from "../session/types.js";

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

  constructor(
    readonly limits: BudgetLimits,
    private readonly parent?: Budget,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
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
          "the cost of this model is unknown, so --max-cost cannot be kept",
        );
      }
      if (spent.cost >= maxCost) {
        const used = `$${spent.cost.toFixed(4)} of $${maxCost.toFixed(2)}`;
        return this.stop("max-cost", maxCost, spent, `${used} spent`);
      }
    }
    return undefined;
  }

  private stop(budget: BudgetStop["budget"], limit: number, spent: SpendRecord, detail: string): BudgetStop {
    return { budget, limit, spent, message: `budget exhausted: --${budget} (${detail})` };
  }
}

export function describeSpend(spent: SpendRecord): string {
  const cost = spent.cost === null ? "cost unknown" : `$${spent.cost.toFixed(4)}`;
  const calls = `${spent.turns} model call${spent.turns === 1 ? "" : "s"}`;
  return `${calls}, ${spent.tokens.toLocaleString("en-US")} tokens, ${formatDuration(spent.elapsedMs)}, ${cost}`;
}
