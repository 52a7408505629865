// MCP progress notifications for a task that runs long: one line per step a person would want to see
// (a model call, a cell, a sub-agent), and a heartbeat while a step takes a while, so clients that reset
// their request timeout on progress keep waiting. Progress must grow with every notification.
import type { AgentEvent } from "../agent/core/events.js";
import { firstLine } from "../config/text.js";

const HEARTBEAT_MS = 10_000;

/** What one event says as a progress line, or undefined for events that are not steps. */
function progressLine(event: AgentEvent): string | undefined {
  const who = event.agent ? `sub-agent ${event.agent}: ` : "";
  switch (event.type) {
    case "model_request":
      return event.agent ? undefined : `model call (turn ${event.turn})`;
    case "cell":
      return `${who}running a cell: ${firstLine(event.code, 80)}`;
    case "cell_output":
      return `${who}cell ${event.status} after ${(event.durationMs / 1000).toFixed(1)} s`;
    case "child_spawned":
      return `${who}started sub-agent ${event.label ?? event.name} (${event.id}): ${firstLine(event.task, 60)}`;
    case "child_finished":
      return `${who}sub-agent ${event.label ?? event.name} ${event.status}`;
    case "gate_run":
      return event.agent ? undefined : `gates ${event.passed ? "passed" : "failed"}`;
    case "compaction":
      return event.agent ? undefined : "compacted the conversation";
    case "budget_stop":
      return event.agent ? undefined : event.message;
    case "final":
      return event.agent ? undefined : "answered";
    default:
      return undefined;
  }
}

type SendProgress = (progress: number, message: string) => Promise<void>;

/** Turns events into progress notifications (and heartbeats) until `stop()`. */
export class ProgressReporter {
  private count = 0;
  private last = Date.now();
  private readonly timer: NodeJS.Timeout;
  private readonly started = Date.now();

  constructor(private readonly send: SendProgress) {
    this.timer = setInterval(() => {
      if (Date.now() - this.last < HEARTBEAT_MS) return;
      this.emit(`still working (${Math.round((Date.now() - this.started) / 1000)} s)`);
    }, HEARTBEAT_MS / 2);
    this.timer.unref();
  }

  onEvent(event: AgentEvent): void {
    const line = progressLine(event);
    if (line) this.emit(line);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private emit(message: string): void {
    this.count += 1;
    this.last = Date.now();
    // A client that has gone away cannot be told; the work goes on regardless.
    void this.send(this.count, message).catch(() => undefined);
  }
}
