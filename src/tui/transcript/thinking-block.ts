// The model's reasoning (Responses reasoning summaries, Anthropic thinking): dim and collapsed to one line —
// `✻ thinking…` with its latest words while it streams, `✻ thought · <first line>` once the answer is in.
// ctrl+o (the same switch that unfolds cell outputs) shows all of it.
import { truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import type { Theme } from "../theme.js";
import { CachedBlock } from "./blocks.js";
import type { CellView } from "./cell-block.js";
import { sanitize } from "./cell-block.js";

const EXPANDED_MAX = 400;

export class ThinkingBlock extends CachedBlock {
  private text = "";
  private done = false;

  constructor(
    private readonly theme: Theme,
    private readonly view: CellView,
  ) {
    super();
  }

  append(delta: string): void {
    this.text += delta;
    this.invalidate();
  }

  /** The answer is complete; `text` (the journaled reasoning, when readable) replaces what streamed. */
  finish(text?: string): void {
    if (text !== undefined && text.trim() !== "") this.text = text;
    this.done = true;
    this.invalidate();
  }

  /** The stream restarted (a retry): what streamed so far is dropped. */
  reset(): void {
    this.text = "";
    this.invalidate();
  }

  protected override key(width: number): string {
    return `${width}:${this.view.expanded}:${this.done}:${this.text.length}`;
  }

  protected build(width: number): string[] {
    if (this.done && this.text.trim() === "") return [];
    const t = this.theme;
    const body = this.text
      .split("\n")
      .map((l) => sanitize(l).trimEnd())
      .filter((l) => l.trim() !== "");
    const label = this.done ? "✻ thought" : "✻ thinking…";
    if (this.view.expanded && body.length > 0) {
      const lines = ["", truncateToWidth(t.dim(`  ${label}`), width)];
      const wrapped = body.flatMap((l) => wrapTextWithAnsi(l, Math.max(10, width - 4)));
      const shown = wrapped.length > EXPANDED_MAX ? wrapped.slice(-EXPANDED_MAX) : wrapped;
      if (wrapped.length > EXPANDED_MAX)
        lines.push(t.dim(`    … ${wrapped.length - EXPANDED_MAX} earlier lines`));
      for (const l of shown) lines.push(truncateToWidth(t.dim(`    ${l}`), width));
      return lines;
    }
    // Collapsed: the first line says what the reasoning was about once it is done; while it streams, the
    // latest line shows it is moving.
    const pick = this.done ? body[0] : body.at(-1);
    const summary = pick ? pick.replace(/\*\*/g, "").trim() : "";
    const more = this.done && body.length > 1 ? " · ctrl+o" : "";
    const line = summary ? `  ${label} · ${summary}` : `  ${label}`;
    // The hint stays visible: the summary is cut, not it.
    const room = Math.max(0, width - more.length);
    return ["", t.dim(truncateToWidth(line, room) + more)];
  }
}
