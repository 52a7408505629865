// The time budget as something that interrupts work, not only a check before the next model call: a
// signal that aborts a model request at the deadline, and the limit a cell runs under.

import type { ExecuteOptions } from "../../kernel/types.js";
import type { Budget } from "./budget.js";

/** After the interrupt at the deadline, a cell that ignores it is killed this much later. */
export const DEADLINE_GRACE_MS = 500;

/** setTimeout's longest delay; a deadline further away than this (24 days) is not timed. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * A signal that aborts when the budget's deadline passes or the caller's signal aborts, whichever is
 * first. `expired` tells the two apart. Dispose of it when the work it guards is over.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private fired = false;

  constructor(
    private readonly budget: Budget,
    private readonly parent?: AbortSignal,
  ) {
    const left = budget.timeLeftMs();
    if (left !== undefined && left <= MAX_TIMER_MS) {
      this.timer = setTimeout(() => {
        this.fired = true;
        this.controller.abort();
      }, left);
    }
    if (parent?.aborted) this.controller.abort();
    else parent?.addEventListener("abort", this.onParentAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The time budget ran out (by the timer, or by the clock if the caller looks first). */
  get expired(): boolean {
    return this.fired || this.budget.timeLeftMs() === 0;
  }

  /** Epoch ms (Date.now clock) of the deadline, for the retry loop; undefined without a time limit. */
  get at(): number | undefined {
    const left = this.budget.timeLeftMs();
    return left === undefined ? undefined : Date.now() + left;
  }

  /** Aborts the work now, not for the deadline (a budget the streaming answer reached). */
  cut(): void {
    this.controller.abort();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.parent?.removeEventListener("abort", this.onParentAbort);
  }

  private readonly onParentAbort = () => this.controller.abort();
}

/**
 * How long a cell may run when the deadline is nearer than the cell timeout: interrupted at the
 * deadline, killed (and the kernel restarted) shortly after if it ignores the interrupt. `deadline` is
 * epoch ms on the Date.now clock; undefined options mean the usual cell timeout applies.
 */
export function cellLimit(deadline: number | undefined, cellTimeoutMs: number): ExecuteOptions | undefined {
  if (deadline === undefined) return undefined;
  const left = Math.max(1, deadline - Date.now());
  if (left >= cellTimeoutMs) return undefined;
  return {
    timeoutMs: left,
    interruptGraceMs: DEADLINE_GRACE_MS,
    timeoutReason: "the time budget, --max-time, ran out",
  };
}
