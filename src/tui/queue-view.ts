// Messages typed while the agent works: sent to the host at once (it hands them to the model at the next
// turn boundary) and shown here as queued until the journal shows them delivered.
import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { AgentEvent } from "../agent/core/events.js";
import type { Theme } from "./theme.js";

export class QueueView implements Component {
  private readonly items: string[] = [];

  constructor(private readonly theme: Theme) {}

  get size(): number {
    return this.items.length;
  }

  add(text: string): void {
    this.items.push(text);
  }

  clear(): void {
    this.items.length = 0;
  }

  /** Drops the queued messages the host has now delivered; returns whether any were. */
  apply(event: AgentEvent): boolean {
    if (event.agent || this.items.length === 0) return false;
    const delivered =
      event.type === "user" || (event.type === "message" && event.from === "user") ? event.text : undefined;
    if (delivered === undefined) return false;
    const before = this.items.length;
    for (let i = this.items.length - 1; i >= 0; i--) {
      if (delivered.includes((this.items[i] as string).trim())) this.items.splice(i, 1);
    }
    return this.items.length !== before;
  }

  invalidate(): void {}

  render(width: number): string[] {
    if (this.items.length === 0) return [];
    return [
      "",
      ...this.items.map((text) =>
        truncateToWidth(`${this.theme.dim("⋯ queued:")} ${text.replace(/\s+/g, " ")}`, width),
      ),
    ];
  }
}
