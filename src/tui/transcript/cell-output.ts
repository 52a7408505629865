// The output part of a cell in the transcript. While the cell runs it shows the newest lines (what the
// kernel prints now); once it ends, a head and a tail with the true count of the lines between. When the
// UI holds only part of an output (the live stream skips past a cell's cap, the buffer drops its middle,
// the journal keeps a capped copy), it says so and where all of it is: `_out[N]` in the kernel and the
// session's outputs/cell-N.txt, which ctrl+p opens in the pager. Expanded (ctrl+o), long lines wrap.
import { wrapTextWithAnsi } from "@mariozechner/pi-tui";
import type { JournalEventOf } from "../../session/types.js";
import type { Theme } from "../theme.js";
import type { OutputBuffer } from "./output-buffer.js";

const RUNNING_TAIL = 10;
const FOLDED_HEAD = 6;
const FOLDED_TAIL = 6;
const EXPANDED_MAX = 2000;

/** The kernel's marker in a stream past a cell's cap (python/relm/streamer.py). */
const SKIPPED = /^\[relm: [\d,]+ characters skipped in the live view/;
/** The kernel's marker in the capped copy the model sees (python/relm/cells.py). */
const OMITTED = /^\[\.\.\. [\d,]+ characters omitted; the full output is in /;

interface OutputShape {
  output: OutputBuffer;
  end: JournalEventOf<"cell_output"> | undefined;
  expanded: boolean;
  /** The text has a kernel's marker of a skip or cut in it (python/relm/streamer.py, cells.py). */
  marked: boolean;
}

/** Whether streamed or journaled text carries one of the kernel's markers of output left out. */
export function hasMarker(text: string): boolean {
  return text.includes("[relm: ") || text.includes(" characters omitted; the full output is in ");
}

/** Where all of an ended cell's output is, when the UI holds only part of it. */
export function fullOutputOf(end: JournalEventOf<"cell_output"> | undefined): string | undefined {
  return end?.truncated && end.fullOutputFile ? end.fullOutputFile : undefined;
}

/** The lines of a cell's output, each with the gutter, fitted to `width`. */
export function outputLines(
  shape: OutputShape,
  theme: Theme,
  width: number,
  sanitize: (l: string) => string,
) {
  const t = theme;
  const gutter = `  ${t.dim("┊")} `;
  const inner = Math.max(10, width - 4);
  const body = (line: string): string[] => {
    const clean = sanitize(line);
    const styled = SKIPPED.test(clean) || OMITTED.test(clean) ? t.warn(clean) : t.code(clean);
    if (!shape.expanded) return [gutter + styled];
    return wrapTextWithAnsi(styled, inner).map((l) => gutter + l);
  };
  const remark = (text: string) => [`${gutter}${t.dim(text)}`];
  const { output, end } = shape;
  const kept = output.lineCount();
  if (kept === 0) return [];
  const total = Math.max(end?.outputLines ?? 0, kept);
  const partial = total > kept || output.kept().dropped > 0 || shape.marked;
  const where = whereAll(end);
  if (shape.expanded) {
    const { head, dropped, tail } = output.kept();
    const lines = [...head];
    const gaps: number[] = [];
    if (dropped > 0) gaps.push(lines.push("") - 1);
    lines.push(...tail);
    const out: string[] = [];
    const cut = lines.length > EXPANDED_MAX ? lines.length - EXPANDED_MAX : 0;
    lines.forEach((line, i) => {
      if (cut > 0 && i >= EXPANDED_MAX / 2 && i < EXPANDED_MAX / 2 + cut) {
        if (i === EXPANDED_MAX / 2) out.push(...remark(`… ${fmt(cut)} lines not drawn here`));
        return;
      }
      if (gaps.includes(i)) out.push(...remark(`… ${fmt(dropped)} lines the UI did not keep`));
      else out.push(...body(line));
    });
    if (partial) out.push(...partialNote(t, gutter, kept, total, where));
    return out;
  }
  if (!end) {
    // Running: what the kernel prints now.
    const last = output.last(RUNNING_TAIL);
    if (kept <= RUNNING_TAIL) return last.flatMap(body);
    return [
      ...remark(`… ${fmt(kept - RUNNING_TAIL)} earlier lines · ctrl+o shows them`),
      ...last.flatMap(body),
    ];
  }
  if (total <= FOLDED_HEAD + FOLDED_TAIL + 1 && !partial) return output.first(total).flatMap(body);
  const hidden = total - FOLDED_HEAD - FOLDED_TAIL;
  const lines = [
    ...output.first(FOLDED_HEAD).flatMap(body),
    ...remark(`… ${fmt(hidden)} more lines · ctrl+o shows ${partial ? "what the UI kept" : "all"}`),
    ...output.last(FOLDED_TAIL).flatMap(body),
  ];
  if (partial && where)
    lines.push(`${gutter}${t.dim(`all ${fmt(total)} lines: ${where} · ctrl+p opens it in the pager`)}`);
  return lines;
}

function partialNote(t: Theme, gutter: string, kept: number, total: number, where: string | undefined) {
  const what = total > kept ? `${fmt(kept)} of ${fmt(total)} lines` : "part of this output";
  const rest = where
    ? `all of it: ${where} · ctrl+p opens it in the pager`
    : "all of it stays in the kernel's _out";
  return [`${gutter}${t.warn(`⚠ the UI keeps ${what}; ${rest}`)}`];
}

/** `outputs/cell-7.txt (_out[7])`, for an ended cell whose full output was written aside. */
function whereAll(end: JournalEventOf<"cell_output"> | undefined): string | undefined {
  const file = fullOutputOf(end);
  if (!end || !file) return undefined;
  return `${file} (_out[${end.executionCount}] in the kernel)`;
}

function fmt(n: number): string {
  return n.toLocaleString("en-US");
}
