// What one turn spent, for the line that ends it. The `final` event carries the session's budget so far
// (calls, tokens, cost since this host started the session, and the time since then, idle time
// included); the turn's own is that minus what the previous turn's end said, and its time runs from the
// message (or the first model request) that started it to its end. A resumed session's budget goes on
// from what its journals spent, which the `resumed` event says (older journals: from zero).
import type { AgentEvent } from "../../agent/core/events.js";
import type { SpendRecord } from "../../session/types.js";

const ZERO: SpendRecord = { turns: 0, tokens: 0, elapsedMs: 0, cost: 0 };

export class TurnSpend {
  private base: SpendRecord = ZERO;
  private startedAt: number | undefined;

  /** Notes a root event; for one that ends a turn with a spend, returns the turn's own. */
  apply(event: AgentEvent): SpendRecord | undefined {
    const at = timeOf(event);
    switch (event.type) {
      case "session":
      case "resumed":
        // A turn cut off by its host's end (kill -9, a crash) has no end event: the next one starts afresh.
        this.base = (event.type === "resumed" && event.spent) || ZERO;
        this.startedAt = undefined;
        return undefined;
      case "user":
      case "model_request":
        this.startedAt ??= at;
        return undefined;
      case "final":
      case "budget_stop":
        return this.end(event.spent, at);
      case "interrupted":
        // Its calls are its own: the next turn's line counts from here (an older journal has no spend).
        if (event.spent) this.end(event.spent, at);
        this.startedAt = undefined;
        return undefined;
      case "error":
        this.startedAt = undefined;
        return undefined;
      default:
        return undefined;
    }
  }

  private end(spent: SpendRecord, at: number): SpendRecord {
    // A budget smaller than the base was started again (a resume this view did not see).
    const base = spent.turns < this.base.turns || spent.tokens < this.base.tokens ? ZERO : this.base;
    const elapsed = this.startedAt !== undefined ? at - this.startedAt : spent.elapsedMs - base.elapsedMs;
    const own: SpendRecord = {
      turns: spent.turns - base.turns,
      tokens: spent.tokens - base.tokens,
      elapsedMs: Math.max(0, elapsed),
      cost: spent.cost === null ? null : spent.cost - (base.cost ?? 0),
    };
    this.base = spent;
    this.startedAt = undefined;
    return own;
  }
}

/** When a journaled event was written (live events not journaled have no time: now). */
function timeOf(event: AgentEvent): number {
  return "t" in event ? Date.parse(event.t) : Date.now();
}
