// One cell in the transcript: its code (highlighted), its output streaming in as the kernel produces it,
// the time it has been running, and how it ended. Long outputs fold to head and tail.
import { readFileSync } from "node:fs";
import {
  type Component,
  getCapabilities,
  Image,
  truncateToWidth,
  wrapTextWithAnsi,
} from "@mariozechner/pi-tui";
import { formatDuration } from "../../config/duration.js";
import { imageTypeOfFile } from "../../session/image-files.js";
import type { JournalEventOf } from "../../session/types.js";
import type { Theme } from "../theme.js";
import { CachedBlock } from "./blocks.js";
import { fullOutputOf, hasMarker, outputLines } from "./cell-output.js";
import { highlightCell } from "./highlight-lazy.js";
import { OutputBuffer } from "./output-buffer.js";

const CODE_LINES = 12;

export interface CellView {
  /** Shared by every cell: ctrl+o shows outputs in full. */
  expanded: boolean;
  now(): number;
}

type CellEnd = JournalEventOf<"cell_output">;

export class CellBlock extends CachedBlock {
  private readonly output = new OutputBuffer();
  private end: CellEnd | undefined;
  /** When the turn ended without this cell's end (it never ran, or the host went away): the clock stops. */
  private stoppedAt: number | undefined;
  private readonly code: string[];
  private streamed = false;
  private marked = false;
  /**
   * Files this cell changed (file_edit events come between its `cell` and `cell_output`): a
   * FileEditBlock each, known here as a component only (it imports this module's clip and sanitize).
   */
  private readonly edits: Component[] = [];

  constructor(
    readonly callId: string,
    code: string,
    private readonly startedAt: number,
    private readonly theme: Theme,
    private readonly view: CellView,
    /** Where the session keeps image files (relative paths in cell_output are under it). */
    private readonly sessionDir: string | undefined,
  ) {
    super();
    // The model's code is shown, not obeyed: its escape sequences were left out as the event arrived
    // (shown-event.ts).
    const trimmed = code.replace(/\n+$/, "");
    this.code = theme.color ? highlightCell(trimmed) : trimmed.split("\n");
  }

  get running(): boolean {
    return this.end === undefined && this.stoppedAt === undefined;
  }

  /** The turn ended with no output for this cell: it stops at `at` and says it did not finish. */
  stop(at: number): void {
    if (!this.running) return;
    this.stoppedAt = at;
    this.invalidate();
  }

  /** Output as it streams from the kernel (not journaled; the final event carries the capped text). */
  appendOutput(text: string): void {
    this.streamed = true;
    this.output.append(text);
    if (!this.marked && hasMarker(text)) this.marked = true;
    this.invalidate();
  }

  /** A file this cell changed, shown after its output so far. */
  addEdit(edit: Component): void {
    this.edits.push(edit);
    this.invalidate();
  }

  finish(event: CellEnd): void {
    this.end = event;
    // A replayed cell (or one attached to mid-way) has no stream: show what the journal kept.
    if (!this.streamed) {
      this.output.append(event.output);
      this.marked = hasMarker(event.output);
    }
    this.invalidate();
  }

  /** The file (relative to the session's directory) with all of this ended cell's output, if the UI holds part. */
  get fullOutputFile(): string | undefined {
    return fullOutputOf(this.end);
  }

  private get elapsed(): number {
    if (this.end) return this.end.durationMs;
    return Math.max(0, (this.stoppedAt ?? this.view.now()) - this.startedAt);
  }

  // Running cells re-render as their clock ticks; finished ones only when their shape changes.
  // Keyed on the time as shown (not tenths of a second, which round otherwise): the activity line's
  // clock, drawn from the same start in the same frame, reads the same.
  protected override key(width: number): string {
    return `${width}:${this.view.expanded}:${this.end ? "end" : this.stoppedAt !== undefined ? "stopped" : formatDuration(this.elapsed)}:${this.output.chars}:${this.edits.length}`;
  }

  protected build(width: number): string[] {
    const t = this.theme;
    const lines: string[] = [""];
    lines.push(clip(`${t.accent("▸")} ${t.dim("ipython")}`, width));
    const gutter = t.accent("│ ");
    const shown = this.code.length > CODE_LINES ? this.code.slice(0, CODE_LINES) : this.code;
    for (const line of shown) lines.push(clip(`  ${gutter}${line}`, width));
    if (this.code.length > CODE_LINES) {
      lines.push(t.dim(`  │ … ${this.code.length - CODE_LINES} more lines of code`));
    }
    const shape = { output: this.output, end: this.end, expanded: this.view.expanded, marked: this.marked };
    for (const line of outputLines(shape, t, width, sanitize)) lines.push(clip(line, width));
    for (const edit of this.edits) lines.push(...edit.render(width));
    lines.push(...this.footer(width, this.elapsed));
    return lines;
  }

  private footer(width: number, elapsed: number): string[] {
    const t = this.theme;
    const time = formatDuration(elapsed);
    const end = this.end;
    if (!end && this.stoppedAt !== undefined)
      return [clip(`  ${t.error("✗ not run to its end")} ${t.dim("(the turn ended first)")}`, width)];
    if (!end) return [clip(`  ${t.accent("◌")} ${t.dim(`running ${time}`)}`, width)];
    const out: string[] = [];
    if (end.status === "ok" && !end.exitCode) out.push(`  ${t.ok("✓")} ${t.dim(time)}`);
    else if (end.status === "ok") out.push(`  ${t.error(`✗ exit status ${end.exitCode}`)} ${t.dim(time)}`);
    else {
      const what = end.error
        ? `${end.error.name}${end.error.value ? `: ${end.error.value}` : ""}`
        : end.status;
      out.push(
        `  ${t.error(`✗ ${end.status === "error" ? what : `${end.status}${end.error ? ` (${what})` : ""}`}`)} ${t.dim(time)}`,
      );
    }
    if (end.note) out.push(...wrapTextWithAnsi(t.warn(`  ⚠ ${end.note}`), width));
    const lines = out.map((l) => clip(l, width));
    for (const file of end.imageFiles) {
      const path = this.sessionDir ? `${this.sessionDir}/${file}` : file;
      const inline = this.inlineImage(path, width);
      if (inline) lines.push(...inline);
      else lines.push(clip(`  ${t.accent("▣")} ${t.dim(`image: ${path}`)}`, width));
    }
    return lines;
  }

  private readonly images = new Map<string, Image | null>();

  /** The image drawn in the terminal (kitty / iTerm2 graphics), or undefined where it cannot be. */
  private inlineImage(path: string, width: number): string[] | undefined {
    if (!getCapabilities().images) return undefined;
    let image = this.images.get(path);
    if (image === undefined) {
      try {
        const data = readFileSync(path).toString("base64");
        image = new Image(
          data,
          imageTypeOfFile(path),
          { fallbackColor: this.theme.dim },
          { maxWidthCells: 80, maxHeightCells: 24, filename: path },
        );
      } catch {
        image = null;
      }
      this.images.set(path, image);
    }
    return image ? image.render(width) : undefined;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what is left out
const SGR = /\u001b\[[0-9;]*m/g;

/**
 * truncateToWidth, without measuring lines that cannot be too wide: measuring every line grapheme by
 * grapheme was most of the time of drawing a long transcript the first time (bench/tui.mjs). No
 * character takes more than two columns (a tab three), so a line with at most half as many characters
 * as the width, colour codes aside, is returned as it is, exactly as truncateToWidth returns it.
 */
export function clip(line: string, width: number): string {
  const plain = line.replace(SGR, "");
  const tabs = plain.split("\t").length - 1;
  return 2 * plain.length + tabs <= width ? line : truncateToWidth(line, width);
}

/** Output is shown as text: control characters other than tab would move the terminal's cursor. */
export function sanitize(line: string): string {
  return (
    line
      .replace(/\t/g, "    ")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
      .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007|[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
  );
}
