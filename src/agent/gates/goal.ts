import type { JournalBody } from "../../session/types.js";

/**
 * The objective of an agent's work (/goal, --goal, goal.set() in code), restated at every continuation
 * and after every compaction, and what says it is moving: done() and the progress notes a cell records.
 */
export class AgentGoal {
  /** Set by goal.done() in a cell; a new goal clears it. */
  done = false;
  /** goal.progress() calls: an autonomous run compares them to notice a stall. */
  progressNotes = 0;

  constructor(
    private readonly record: (body: JournalBody) => unknown,
    /** The goal a resumed session had set last. */
    public text: string | undefined = undefined,
  ) {}

  set(text: string): void {
    this.text = text;
    this.done = false;
    this.record({ type: "goal", text });
  }
}
