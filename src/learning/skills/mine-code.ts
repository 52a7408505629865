// The body of a skill's function, rebuilt from the first occurrence of a chain: its cells in order,
// the varying literals replaced by parameter names, indented into the function, and each cell's
// displayed last expression kept visible (the last one becomes the return value).
import type { Chain } from "./mine-chains.js";
import { statements, type Token } from "./mine-tokens.js";

interface FunctionBody {
  /** Indented lines of the body (four spaces), without the def line or docstring. */
  lines: string[];
  /** Source of the expression returned (the last cell's displayed value), if any. */
  returns?: string;
  /** Whether the body calls `_show` (an earlier cell displayed its last expression). */
  shows: boolean;
}

const STATEMENT_WORDS = new Set(
  (
    "import from def class if elif else for while with try except finally return del pass raise assert " +
    "global nonlocal break continue async @"
  ).split(" "),
);

interface Replacement {
  start: number;
  end: number;
  text: string;
}

/**
 * `sources` are the first occurrence's cells; `slotNames` names the parameter each literal slot
 * (index into chain.literalTokens) became.
 */
export function functionBody(
  chain: Chain,
  sources: readonly string[],
  slotNames: ReadonlyMap<number, string>,
): FunctionBody {
  const slotOf = new Map(chain.literalTokens.map((t, i) => [t, i]));
  const lines: string[] = [];
  let returns: string | undefined;
  let shows = false;
  chain.cells.forEach((tokens, index) => {
    const source = sources[index] as string;
    const edits: Replacement[] = [];
    for (const t of tokens) {
      const slot = slotOf.get(t);
      const name = slot === undefined ? undefined : slotNames.get(slot);
      if (name) edits.push({ start: t.start, end: t.end, text: name });
    }
    for (const s of statements(tokens)) {
      if (isSelfAssignment(s, tokens, slotOf, slotNames)) edits.push(wholeLine(source, s));
    }
    const last = displayed(tokens);
    const lastCell = index === chain.cells.length - 1;
    if (last) {
      const first = last[0] as Token;
      const end = (last.at(-1) as Token).end;
      if (lastCell) {
        returns = applyEdits(source.slice(first.start, end), edits, first.start);
        edits.push({ start: first.start, end: first.start, text: "return " });
      } else {
        edits.push({ start: first.start, end: first.start, text: "_show(" }, { start: end, end, text: ")" });
        shows = true;
      }
    }
    const events = chain.occurrences[0]?.events[index];
    lines.push(
      `    # cell ${index + 1} of ${chain.cells.length}${events ? ` (journal event ${events})` : ""}`,
    );
    const text = indent(source, tokens, edits);
    lines.push(...text.split("\n").map((l) => l.trimEnd()));
  });
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  return { lines, returns, shows };
}

/** `path = "a.txt"` where the literal became the parameter `path`: the line is dropped. */
function isSelfAssignment(
  s: Token[],
  tokens: readonly Token[],
  slotOf: ReadonlyMap<Token, number>,
  slotNames: ReadonlyMap<number, string>,
): boolean {
  if (s.length !== 3 || s[0]?.kind !== "name" || s[1]?.text !== "=") return false;
  const slot = slotOf.get(s[2] as Token);
  if (slot === undefined || slotNames.get(slot) !== s[0].text) return false;
  // Only a statement on a line of its own (not one of `a = 1; b = 2`).
  const k = tokens.indexOf(s[0]);
  const before = tokens
    .slice(0, k)
    .filter((t) => t.kind !== "comment")
    .at(-1);
  const after = tokens.slice(k + 3).find((t) => t.kind !== "comment");
  return (
    (before === undefined || before.kind === "newline") && (after === undefined || after.kind === "newline")
  );
}

function wholeLine(source: string, s: Token[]): Replacement {
  const start = source.lastIndexOf("\n", (s[0] as Token).start - 1) + 1;
  const nl = source.indexOf("\n", (s.at(-1) as Token).end);
  return { start, end: nl < 0 ? source.length : nl + 1, text: "" };
}

/**
 * The cell's last statement when IPython would display its value: a top-level expression, not
 * silenced by a trailing `;`, and not a bare `print(...)` (which shows nothing of its own).
 */
function displayed(tokens: readonly Token[]): Token[] | undefined {
  const all = statements(tokens);
  const last = all.at(-1);
  const first = last?.[0];
  if (!last || !first || first.level !== 0 || first.depth !== 0) return undefined;
  if (STATEMENT_WORDS.has(first.text) && (first.kind === "name" || first.text === "@")) return undefined;
  if (
    last.some((t) => t.depth === 0 && t.kind === "op" && /^(?:[-+*/%@&|^]|\*\*|\/\/|<<|>>)?=$/.test(t.text))
  )
    return undefined;
  if (first.kind === "name" && last[1]?.text === ":" && last[1].depth === 0) return undefined;
  const lastToken = last.at(-1) as Token;
  const after = tokens.slice(tokens.indexOf(lastToken) + 1).find((t) => t.kind !== "comment");
  if (after?.kind === "op" && after.text === ";") return undefined;
  const isPrint =
    first.text === "print" && last[1]?.text === "(" && lastToken.text === ")" && lastToken.depth === 0;
  if (isPrint && closesAt(last, 1) === last.length - 1) return undefined;
  return last;
}

/** Index of the bracket closing the one at `open`. */
function closesAt(tokens: Token[], open: number): number {
  const depth = (tokens[open] as Token).depth;
  for (let k = open + 1; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.kind === "op" && /^[)\]}]$/.test(t.text) && t.depth === depth) return k;
  }
  return -1;
}

function applyEdits(text: string, edits: Replacement[], offset: number): string {
  let out = "";
  let pos = 0;
  for (const e of [...edits].sort((a, b) => a.start - b.start || a.end - b.end)) {
    const start = e.start - offset;
    const end = e.end - offset;
    if (start < pos || end > text.length || start < 0) continue;
    out += text.slice(pos, start) + e.text;
    pos = end;
  }
  return out + text.slice(pos);
}

/** The cell with `edits` applied and every line indented four spaces, except lines inside a string. */
function indent(source: string, tokens: readonly Token[], edits: Replacement[]): string {
  const strings = tokens.filter((t) => t.kind === "string" && t.text.includes("\n"));
  const inString = (p: number) => strings.some((t) => t.start < p && p < t.end);
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  let out = "    ";
  let p = 0;
  let e = 0;
  while (p < source.length) {
    const edit = sorted[e];
    if (edit && edit.start === p) {
      out += edit.text;
      p = Math.max(p, edit.end);
      e++;
      continue;
    }
    if (edit && edit.start < p) {
      e++; // overlapped by an earlier edit (e.g. a dropped line's literal)
      continue;
    }
    const c = source[p] as string;
    out += c;
    if (c === "\n" && !inString(p)) out += "    ";
    p++;
  }
  // Insertions at the very end (the `)` closing `_show(` in a cell without a final newline).
  for (; e < sorted.length; e++)
    if ((sorted[e] as Replacement).start >= source.length) out += sorted[e]?.text;
  return out;
}
