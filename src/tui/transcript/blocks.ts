// The transcript's simple blocks: the person's messages, the model's text (markdown, streaming), and
// one-line notices (retries, gates, compaction…).
import {
  type Component,
  Markdown,
  type MarkdownTheme,
  truncateToWidth,
  visibleWidth,
  wrapTextWithAnsi,
} from "@mariozechner/pi-tui";
import { lexer, type Token } from "marked";
import type { Theme } from "../theme.js";

const USER_LINES = 12;

/**
 * A block whose lines are built once per key (the width, and what else changes its shape: folding, a
 * running clock) and kept until the key changes or invalidate() is called.
 */
export abstract class CachedBlock implements Component {
  private cache: { key: string; lines: string[] } | undefined;

  /** What the lines depend on besides the text (which invalidates them itself): the width by default. */
  protected key(width: number): string {
    return String(width);
  }

  protected abstract build(width: number): string[];

  invalidate(): void {
    this.cache = undefined;
  }

  render(width: number): string[] {
    const key = this.key(width);
    if (this.cache?.key === key) return this.cache.lines;
    const lines = this.build(width);
    this.cache = { key, lines };
    return lines;
  }
}

/** A message the person sent (or one that was queued and then delivered). */
export class UserBlock extends CachedBlock {
  constructor(
    private readonly text: string,
    private readonly theme: Theme,
    private readonly from?: string,
  ) {
    super();
  }

  protected build(width: number): string[] {
    const t = this.theme;
    const body = this.text.replace(/\s+$/, "").split("\n");
    const shown = body.length > USER_LINES ? [...body.slice(0, USER_LINES)] : body;
    const lines: string[] = [""];
    const who = this.from ? t.dim(`[from ${this.from}] `) : "";
    shown.forEach((line, i) => {
      const prefix = i === 0 ? `${t.accent("›")} ${who}` : "  ";
      // A word longer than the width wraps onto its own lines; no empty line in between.
      const pieces = wrapTextWithAnsi(t.user(line), Math.max(10, width - 2)).filter(
        (w) => visibleWidth(w) > 0,
      );
      const wrapped = pieces.length > 0 ? pieces : [""];
      wrapped.forEach((w, j) => {
        lines.push(truncateToWidth(`${j === 0 ? prefix : "  "}${w}`, width));
      });
    });
    if (body.length > USER_LINES) lines.push(t.dim(`  … ${body.length - USER_LINES} more lines`));
    return lines;
  }
}

/**
 * The model's text as markdown. While it streams, text only grows, so lines already shown keep their
 * wrapping and the differential renderer rewrites just the tail. Top-level blocks that can no longer
 * change are rendered once and kept; each frame renders only the last blocks, so a frame of a long
 * answer costs what one of a short answer does (bench/tui.mjs: re-rendering the whole answer on every
 * delta made streaming cost 45% of a core). The lines are the same as rendering the whole text at once.
 */
export class AssistantBlock implements Component {
  private text = "";
  private readonly theme: MarkdownTheme;
  private readonly highlighted = new HighlightMemo();
  private readonly settled: SettledBlocks[] = [];
  /** The (tab-expanded) text the settled blocks cover: always a prefix of the whole. */
  private settledText = "";
  private settledLines: { width: number; count: number; lines: string[] } | undefined;
  /** The blocks that may still change, rendered on every change. */
  private readonly live: Markdown;
  /** Set once a link reference definition appears: it can change links above it, so nothing is settled. */
  private whole = false;

  constructor(theme: Theme) {
    this.theme = this.highlighted.wrap(theme.markdown);
    this.live = new Markdown("", 0, 0, this.theme);
  }

  append(delta: string): void {
    this.update(this.text + delta);
  }

  set(text: string): void {
    if (text === this.text) return;
    this.update(text);
  }

  private update(text: string): void {
    this.text = text;
    const expanded = text.replace(/\t/g, "   "); // as Markdown does before parsing
    if (!expanded.startsWith(this.settledText)) this.unsettle();
    let tail = expanded.slice(this.settledText.length);
    if (!this.whole && REFERENCE_DEFINITION.test(tail)) {
      this.whole = true;
      this.unsettle();
      tail = expanded;
    }
    const split = this.whole ? undefined : settle(tail);
    if (split) {
      this.settled.push(new SettledBlocks(split.blocks, split.next, this.theme));
      this.settledText += split.blocks;
      tail = tail.slice(split.blocks.length);
    }
    this.live.setText(tail);
  }

  private unsettle(): void {
    this.settled.length = 0;
    this.settledText = "";
    this.settledLines = undefined;
  }

  invalidate(): void {
    for (const s of this.settled) s.invalidate();
    this.settledLines = undefined;
    this.live.invalidate();
  }

  render(width: number): string[] {
    if (this.text.trim() === "") return [];
    this.highlighted.nextRender();
    let done = this.settledLines;
    if (done?.width !== width || done.count !== this.settled.length) {
      done = { width, count: this.settled.length, lines: this.settled.flatMap((s) => s.render(width)) };
      this.settledLines = done;
    }
    return ["", ...done.lines, ...this.live.render(width)];
  }
}

/** A line that defines a link reference (`[name]: url`), which markdown applies to the whole text. */
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:/m;

/**
 * Which blocks at the start of `text` are settled: every top-level block before the last two that are
 * not blank. The last may still grow; the one before it is complete but decides how the blocks before
 * it end (the spacing after a block depends on the kind of block that follows), so it is kept as `next`.
 */
function settle(text: string): { blocks: string; next: string } | undefined {
  const tokens = lexer(text);
  const solid = tokens.flatMap((t, i) => (t.type === "space" ? [] : [i]));
  const next = solid.at(-2);
  if (next === undefined || next < 1) return undefined;
  const blocks = tokens
    .slice(0, next)
    .map((t) => t.raw)
    .join("");
  const nextRaw = (tokens[next] as Token).raw;
  // The pieces must be the text itself (the lexer normalises line endings), or the split would be wrong.
  return text.startsWith(blocks + nextRaw) ? { blocks, next: nextRaw } : undefined;
}

/** Settled blocks, rendered once per width as they are within the whole text. */
class SettledBlocks extends CachedBlock {
  constructor(
    private readonly blocks: string,
    /** The complete block that follows them. */
    private readonly next: string,
    private readonly theme: MarkdownTheme,
  ) {
    super();
  }

  protected build(width: number): string[] {
    // Rendered with the block after them (which decides the spacing of their last line), then that
    // block's own lines taken off the end.
    const withNext = new Markdown(this.blocks + this.next, 0, 0, this.theme).render(width);
    const nextOnly = new Markdown(this.next, 0, 0, this.theme).render(width);
    return withNext.slice(0, withNext.length - nextOnly.length);
  }
}

/**
 * Remembers highlighted code blocks between renders: a block is highlighted again only when its code
 * changed (highlighting was the largest cost of re-rendering a streaming answer). Only what the last
 * render used is kept, so the growing versions of a block that is still streaming do not pile up.
 */
class HighlightMemo {
  private current = new Map<string, string[]>();
  private previous = new Map<string, string[]>();

  wrap(theme: MarkdownTheme): MarkdownTheme {
    const highlight = theme.highlightCode;
    if (!highlight) return theme;
    return {
      ...theme,
      highlightCode: (code, lang) => {
        const key = `${lang ?? ""}\n${code}`;
        const lines = this.current.get(key) ?? this.previous.get(key) ?? highlight(code, lang);
        this.current.set(key, lines);
        return lines;
      },
    };
  }

  /** Called before each render: what the last render did not use is dropped at the next one. */
  nextRender(): void {
    if (this.current.size === 0) return;
    this.previous = this.current;
    this.current = new Map();
  }
}

/** One or more lines of status text, wrapped to the width. */
export class NoticeBlock extends CachedBlock {
  constructor(
    private text: string,
    private readonly gap = false,
  ) {
    super();
  }

  setText(text: string): void {
    this.text = text;
    this.invalidate();
  }

  protected build(width: number): string[] {
    const lines = this.text.split("\n").flatMap((l) => wrapTextWithAnsi(l, width));
    return this.gap ? ["", ...lines] : lines;
  }
}
