// What the root agent is doing right now, as one line above the input: a spinner while the model is
// called (with the time to its first token), a running cell, sub-agents being waited for.

import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { AgentEvent } from "../agent/core/events.js";
import { SHELL_CALL_PREFIX } from "../agent/core/shell.js";
import { formatDuration } from "../config/duration.js";
import type { Theme } from "./theme.js";

type Phase = "idle" | "starting" | "thinking" | "responding" | "running" | "waiting" | "interrupting";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export class Activity implements Component {
  phase: Phase = "idle";
  /** Turns seen to end: a reply that comes in after its turn has ended must not make the view busy again. */
  ended = 0;
  private since = 0;
  private requestAt = 0;
  private firstTokenMs: number | undefined;
  private turn = 0;

  /**
   * `now` is the time shown (the app's clock, moved on by its tick); first-token latency is measured
   * with Date.now, which must not have the tick's granularity.
   */
  constructor(
    private readonly theme: Theme,
    private readonly now: () => number = Date.now,
  ) {}

  get busy(): boolean {
    return this.phase !== "idle";
  }

  /** `at`: when the phase began (a journaled event's time), else now. */
  set(phase: Phase, at = this.now()): void {
    if (phase === this.phase) return;
    this.phase = phase;
    this.since = at;
  }

  /** Follows the root agent's events; returns whether the line changed. */
  apply(event: AgentEvent): boolean {
    if (event.agent) return false;
    const now = Date.now();
    // From the time the host journaled the event, not the time it arrived: after an attach the history
    // arrives at once, and the clock must count from the cell's (the turn's) real start, as the cell's does.
    const at = "t" in event ? Date.parse(event.t) : this.now();
    switch (event.type) {
      case "user":
        if (this.phase === "idle" || this.phase === "starting") this.set("thinking", at);
        return true;
      case "model_request":
        this.turn = event.turn;
        this.requestAt = now;
        this.firstTokenMs = undefined;
        this.set("thinking", at);
        return true;
      case "text_delta":
        if (this.firstTokenMs === undefined) this.firstTokenMs = now - this.requestAt;
        this.set("responding");
        return true;
      case "model_response":
        if (this.firstTokenMs === undefined && this.requestAt > 0) this.firstTokenMs = event.durationMs;
        return true;
      case "cell":
        this.set("running", at);
        return true;
      case "cell_output":
        // A person's !command (agent/core/shell.ts) runs between turns: after it, nothing is.
        this.set(event.callId.startsWith(SHELL_CALL_PREFIX) ? "idle" : "thinking", at);
        return true;
      case "child_spawned":
        this.set("waiting", at);
        return true;
      case "final":
      case "error":
      case "interrupted":
      case "budget_stop":
      case "autonomy_end":
        this.ended++;
        this.set("idle");
        return true;
      default:
        return false;
    }
  }

  invalidate(): void {}

  render(width: number): string[] {
    if (this.phase === "idle") return [];
    const t = this.theme;
    const now = this.now();
    const frame = FRAMES[Math.floor(now / 100) % FRAMES.length] as string;
    const elapsed = formatDuration(Math.max(0, now - this.since));
    const ttft =
      this.firstTokenMs !== undefined ? t.dim(` · first token ${formatDuration(this.firstTokenMs)}`) : "";
    const words: Record<Phase, string> = {
      idle: "",
      starting: "starting the session",
      thinking: this.turn > 0 ? `thinking (turn ${this.turn})` : "thinking",
      responding: "responding",
      running: "running a cell",
      waiting: "waiting for sub-agents",
      interrupting: "interrupting",
    };
    const hint = this.phase === "interrupting" ? "" : t.dim("  esc to interrupt");
    return [
      "",
      truncateToWidth(`${t.accent(frame)} ${words[this.phase]} ${t.dim(elapsed)}${ttft}${hint}`, width),
    ];
  }
}
