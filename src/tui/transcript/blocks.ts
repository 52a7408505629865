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
import { Lexer, type Token } from "marked";
import type { Theme } from "../theme.js";
import { fitTables } from "./narrow-tables.js";

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
    // Its escape sequences were left out as the event arrived (shown-event.ts).
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
 * delta made streaming cost 45% of a core). A delta costs its own length, not the answer's: tabs are
 * expanded and link definitions looked for in the delta alone, and the blocks are split again only once
 * the unsettled text has grown by a quarter (re-lexing it on every delta made a 200 KB answer take
 * minutes to show: bench/tui-longstream.mjs). The lines are the same as rendering the whole text at once.
 */
export class AssistantBlock implements Component {
  private text = "";
  private readonly theme: MarkdownTheme;
  private readonly highlighted = new HighlightMemo();
  private readonly settled: SettledBlocks[] = [];
  /** The (tab-expanded) text the settled blocks cover: always a prefix of the whole. */
  private settledText = "";
  /** The (tab-expanded) text after the settled blocks: what `live` shows. */
  private tail = "";
  /** The tail's length from which splitting it into blocks is tried again. */
  private settleFrom = 0;
  private settledLines: { width: number; count: number; lines: string[] } | undefined;
  /** The blocks that may still change, rendered on every change. */
  private readonly live: Markdown;
  /** The text `live` was last given: the tail, with tables too wide for the width as records. */
  private liveText = "";
  /** Set once a link reference definition appears: it can change links above it, so nothing is settled. */
  private whole = false;
  private references = new ReferenceScan();

  constructor(theme: Theme) {
    this.theme = this.highlighted.wrap(theme.markdown);
    this.live = new Markdown("", 0, 0, this.theme);
  }

  append(delta: string): void {
    if (delta === "") return;
    this.text += delta;
    // Escape sequences the model wrote were left out as each delta arrived (shown-event.ts). Tabs are
    // expanded as Markdown does before parsing (one character at a time).
    this.grow(delta.replace(/\t/g, "   "));
  }

  set(text: string): void {
    if (text === this.text) return;
    if (text.startsWith(this.text)) {
      this.append(text.slice(this.text.length));
      return;
    }
    this.text = "";
    this.whole = false;
    this.references = new ReferenceScan();
    this.unsettle();
    this.tail = "";
    this.append(text);
  }

  private grow(delta: string): void {
    if (!this.whole && this.references.push(delta)) {
      this.whole = true;
      this.tail = this.settledText + this.tail;
      this.unsettle();
    }
    this.tail += delta;
    if (!this.whole && this.tail.length >= this.settleFrom) {
      const split = settle(this.tail);
      if (split) {
        this.settled.push(new SettledBlocks(split.blocks, split.next, this.theme));
        this.settledText += split.blocks;
        this.tail = this.tail.slice(split.blocks.length);
      }
      // Tried again once the tail has grown by a quarter: lexing it costs its length, so over a whole
      // stream the tries cost a few times the answer's length, however long its blocks are.
      this.settleFrom = this.tail.length + Math.max(256, this.tail.length >> 2);
    }
  }

  private unsettle(): void {
    this.settled.length = 0;
    this.settledText = "";
    this.settledLines = undefined;
    this.settleFrom = 0;
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
    if (done?.width !== width) done = { width, count: 0, lines: [""] };
    // Only blocks settled since the last render are rendered and added.
    for (const s of this.settled.slice(done.count)) for (const line of s.render(width)) done.lines.push(line);
    done.count = this.settled.length;
    this.settledLines = done;
    const shown = fitTables(this.tail, width);
    if (shown !== this.liveText) {
      this.liveText = shown;
      this.live.setText(shown);
    }
    return done.lines.concat(this.live.render(width));
  }
}

/**
 * Whether a text, given piece by piece, has a line that defines a link reference (`[name]: url`, which
 * markdown applies to the whole text): /^ {0,3}\[[^\]]+\]:/m over all of it, decided one character at a
 * time so that a piece costs its own length (the pattern may span lines, as the regular expression does).
 */
export class ReferenceScan {
  /** Spaces since the start of the line while there has been nothing else (-1: something else came). */
  private spaces = 0;
  /** An open `[` at a line's start: none, not followed by anything yet, or by something. */
  private open: "none" | "empty" | "some" = "none";
  private colonNext = false;
  private found = false;

  /** Adds a piece; true once the text so far has such a line. */
  push(piece: string): boolean {
    for (let i = 0; i < piece.length && !this.found; i++) {
      const c = piece[i] as string;
      if (this.colonNext && c === ":") {
        this.found = true;
        break;
      }
      this.colonNext = false;
      if (c === "]") {
        this.colonNext = this.open === "some";
        this.open = "none";
      } else if (c === "[" && this.spaces >= 0 && this.spaces <= 3 && this.open === "none")
        this.open = "empty";
      else if (this.open === "empty") this.open = "some";
      // What a JavaScript multiline ^ takes for the start of a line.
      if (c === "\n" || c === "\r" || c === "\u2028" || c === "\u2029") this.spaces = 0;
      else if (c === " " && this.spaces >= 0) this.spaces += 1;
      else this.spaces = -1;
    }
    return this.found;
  }
}

/**
 * Which blocks at the start of `text` are settled: every top-level block before the last two that are
 * not blank. The last may still grow; the one before it is complete but decides how the blocks before
 * it end (the spacing after a block depends on the kind of block that follows), so it is kept as `next`.
 * Only the blocks are lexed (their inline text plays no part in where they end), as marked's lex() does
 * it after turning line endings into \n.
 */
function settle(text: string): { blocks: string; next: string } | undefined {
  const tokens = new Lexer().blockTokens(text.replace(/\r\n|\r/g, "\n"));
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
    const withNext = new Markdown(fitTables(this.blocks + this.next, width), 0, 0, this.theme).render(width);
    const nextOnly = new Markdown(fitTables(this.next, width), 0, 0, this.theme).render(width);
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
