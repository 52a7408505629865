// For front ends that drive a session purely as clients of its host (the MCP server, the ACP agent):
// when has the work a message started ended, and how? The host sends no "idle" event: a turn's end is
// journaled (final, budget_stop, error, model_error, interrupted), and the host's status then says
// whether more work follows (an autonomous run, a message that arrived meanwhile).
import type { AgentEvent } from "../agent/core/events.js";
import type { AutonomousOutcome } from "../agent/gates/autonomy.js";
import type { HostCall } from "./protocol.js";

type WorkStatus =
  /** How the work ended, in the words of the run's own outcome. */
  | AutonomousOutcome["status"]
  /** No work has ended since the session's last message, and none is running (nothing to report). */
  | "idle"
  /** The host stopped (or the connection to it closed) before the work ended. */
  | "closed";

export interface WorkOutcome {
  status: WorkStatus;
  /** The final answer (done), else what stopped the work, in relm's own words. */
  text: string;
  /** An autonomous run's closing report. */
  report?: string;
}

const AUTONOMY_STATUS: Record<string, WorkStatus> = {
  "gates passed": "done",
  done: "done",
  "budget exhausted": "budget",
  "gates still failing": "gates_failing",
  stalled: "stalled",
  error: "error",
  interrupted: "interrupted",
};

/** How a root turn-end event reads as an outcome. */
export function outcomeOf(event: AgentEvent): WorkOutcome | undefined {
  switch (event.type) {
    case "final":
      return { status: "done", text: event.text };
    case "budget_stop":
      return { status: "budget", text: event.message };
    case "error":
    case "model_error":
      return { status: "error", text: event.message };
    case "interrupted":
      return { status: "interrupted", text: event.reason };
    default:
      return undefined;
  }
}

const BUSY = new Set(["running", "waiting"]);

/** A connection to a host, as the watch needs it (a SessionClient or a SessionHandle). */
interface WatchedHost {
  readonly closed: Promise<void>;
  readonly call: HostCall;
}

/**
 * Follows one attached client's events (feed it every `event` notification) and resolves `settled`
 * once a root turn has ended and the host has no work left, or the host goes away.
 */
export class WorkWatch {
  private last: WorkOutcome | undefined;
  private report: string | undefined;
  private checking = false;
  /** Bumped by every root event: a check that sees a newer one started is stale. */
  private generation = 0;
  private resolve: ((outcome: WorkOutcome) => void) | undefined;
  readonly settled: Promise<WorkOutcome>;

  constructor(private readonly client: WatchedHost) {
    this.settled = new Promise((resolve) => {
      this.resolve = resolve;
    });
    void client.closed.then(() =>
      this.finish(this.closedOutcome("the connection to the session host closed")),
    );
  }

  /** Every event the client receives (replayed or live). */
  feed(event: AgentEvent): void {
    if (event.agent) return;
    this.generation += 1;
    if (event.type === "autonomy_end") {
      this.report = event.report;
      const status = AUTONOMY_STATUS[event.outcome];
      if (status && this.last) this.last = { ...this.last, status };
      return;
    }
    const outcome = outcomeOf(event);
    if (!outcome) return;
    // A model error followed by a budget stop (a request cut off at --max-time) reads as the budget.
    this.last = outcome;
    void this.check();
  }

  /**
   * What had ended before this client attached (read from the journal): the outcome, once the host
   * says no work is running. Work that is running is waited for as usual.
   */
  seed(outcome: WorkOutcome | undefined): void {
    if (!this.last) this.last = outcome ?? { status: "idle", text: "" };
    void this.check();
  }

  /** The host said it is stopping: whatever ended last is the outcome, else the work was cut short. */
  hostClosing(reason: string): void {
    this.finish(this.closedOutcome(reason));
  }

  private closedOutcome(reason: string): WorkOutcome {
    if (this.last) return this.withReport(this.last);
    return { status: "closed", text: reason };
  }

  private withReport(outcome: WorkOutcome): WorkOutcome {
    return this.report ? { ...outcome, report: this.report } : outcome;
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      // The host journals the end before it updates its status: look again, less often as time passes.
      for (let delay = 10; this.resolve; delay = Math.min(delay * 2, 500)) {
        const seen = this.generation;
        const state = await this.client.call("status").catch(() => undefined);
        if (!state) return;
        if (!BUSY.has(state.status) && seen === this.generation && this.last) {
          this.finish(this.withReport(this.last));
          return;
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    } finally {
      this.checking = false;
    }
  }

  private finish(outcome: WorkOutcome): void {
    const resolve = this.resolve;
    this.resolve = undefined;
    resolve?.(outcome);
  }
}
