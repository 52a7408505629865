// The transcript's simple blocks: the person's messages, the model's text (markdown, streaming), and
// one-line notices (retries, gates, compaction…).
import {
  type Component,
  Markdown,
  type MarkdownTheme,
  truncateToWidth,
  wrapTextWithAnsi,
} from "@mariozechner/pi-tui";
import type { Theme } from "./theme.js";

const USER_LINES = 12;

/** A message the person sent (or one that was queued and then delivered). */
export class UserBlock implements Component {
  private cache: { width: number; lines: string[] } | undefined;

  constructor(
    private readonly text: string,
    private readonly theme: Theme,
    private readonly from?: string,
  ) {}

  invalidate(): void {
    this.cache = undefined;
  }

  render(width: number): string[] {
    if (this.cache?.width === width) return this.cache.lines;
    const t = this.theme;
    const body = this.text.replace(/\s+$/, "").split("\n");
    const shown = body.length > USER_LINES ? [...body.slice(0, USER_LINES)] : body;
    const lines: string[] = [""];
    const who = this.from ? t.dim(`[from ${this.from}] `) : "";
    shown.forEach((line, i) => {
      const prefix = i === 0 ? `${t.accent("›")} ${who}` : "  ";
      const wrapped = wrapTextWithAnsi(t.user(line), Math.max(10, width - 2));
      wrapped.forEach((w, j) => {
        lines.push(truncateToWidth(`${j === 0 ? prefix : "  "}${w}`, width));
      });
    });
    if (body.length > USER_LINES) lines.push(t.dim(`  … ${body.length - USER_LINES} more lines`));
    this.cache = { width, lines };
    return lines;
  }
}

/**
 * The model's text as markdown. While it streams, text only grows, so lines already shown keep their
 * wrapping and the differential renderer rewrites just the tail.
 */
export class AssistantBlock implements Component {
  private readonly md: Markdown;
  private text = "";
  private readonly highlighted = new HighlightMemo();

  constructor(theme: Theme) {
    this.md = new Markdown("", 0, 0, this.highlighted.wrap(theme.markdown));
  }

  get content(): string {
    return this.text;
  }

  append(delta: string): void {
    this.text += delta;
    this.md.setText(this.text);
  }

  set(text: string): void {
    if (text === this.text) return;
    this.text = text;
    this.md.setText(text);
  }

  invalidate(): void {
    this.md.invalidate();
  }

  render(width: number): string[] {
    if (this.text.trim() === "") return [];
    this.highlighted.nextRender();
    return ["", ...this.md.render(width)];
  }
}

/**
 * Remembers highlighted code blocks between renders. While an answer streams, each frame renders all of
 * its markdown again (the text changed), and highlighting every code block anew was the largest part of
 * that (bench/tui.mjs, docs/benchmarks.md). Only the blocks of the last render are kept, so the growing
 * versions of a block that is still streaming do not pile up.
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
        let lines = this.current.get(key) ?? this.previous.get(key);
        if (!lines) lines = highlight(code, lang);
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
export class NoticeBlock implements Component {
  private cache: { width: number; lines: string[] } | undefined;

  constructor(
    private text: string,
    private readonly gap = false,
  ) {}

  setText(text: string): void {
    this.text = text;
    this.cache = undefined;
  }

  invalidate(): void {
    this.cache = undefined;
  }

  render(width: number): string[] {
    if (this.cache?.width === width) return this.cache.lines;
    const lines = this.text.split("\n").flatMap((l) => wrapTextWithAnsi(l, width));
    const out = this.gap ? ["", ...lines] : lines;
    this.cache = { width, lines: out };
    return out;
  }
}
