// The agent's task list as a checklist above the input: what plan() in the kernel last set (python/relm/
// plan.py, journaled as `plan`). Hidden while there is none, and once every step is done and a new
// message starts the next piece of work.
import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { AgentEvent } from "../agent/core/events.js";
import type { PlanStep } from "../session/types.js";
import type { Theme } from "./theme.js";

/** Steps shown at most; the rest are counted on one line (the list stays a glance, not a page). */
const MAX_SHOWN = 8;

export class PlanPanel implements Component {
  private steps: PlanStep[] = [];

  constructor(private readonly theme: Theme) {}

  /** Follows the root agent's plan events; returns whether the panel changed. */
  apply(event: AgentEvent): boolean {
    if (event.agent) return false;
    if (event.type === "plan") {
      this.steps = event.steps;
      return true;
    }
    // A finished list goes away when the next piece of work starts.
    if (event.type === "user" && this.steps.length > 0 && this.steps.every((s) => s.status === "done")) {
      this.steps = [];
      return true;
    }
    return false;
  }

  clear(): void {
    this.steps = [];
  }

  invalidate(): void {}

  render(width: number): string[] {
    if (this.steps.length === 0) return [];
    const t = this.theme;
    // The steps around the one being done are the ones worth seeing when the list is long.
    const doing = Math.max(
      0,
      this.steps.findIndex((s) => s.status !== "done"),
    );
    const start = Math.max(0, Math.min(doing - 1, this.steps.length - MAX_SHOWN));
    const shown = this.steps.slice(start, start + MAX_SHOWN);
    const done = this.steps.filter((s) => s.status === "done").length;
    const lines = ["", t.accent(`Plan ${done}/${this.steps.length}`)];
    if (start > 0) lines.push(t.dim(`  … ${start} done above`));
    for (const step of shown) {
      const line =
        step.status === "done"
          ? `  ${t.ok("✓")} ${t.dim(step.text)}`
          : step.status === "doing"
            ? `  ${t.accent("▸")} ${step.text}`
            : `  ${t.dim("○")} ${step.text}`;
      lines.push(truncateToWidth(line, width));
    }
    const after = this.steps.length - start - shown.length;
    if (after > 0) lines.push(t.dim(`  … ${after} more`));
    return lines;
  }
}
