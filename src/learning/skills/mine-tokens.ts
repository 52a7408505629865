// A small Python tokenizer for mining repeated cells: enough to tell literals, names, operators and
// logical lines apart, and to rebuild a cell's source with some literals swapped out. It does not parse.

type TokenKind = "name" | "number" | "string" | "op" | "comment" | "newline";

export interface Token {
  kind: TokenKind;
  text: string;
  /** Offsets into the cell's source. */
  start: number;
  end: number;
  /** Bracket depth before the token. */
  depth: number;
  /** Indentation level of its logical line (0 = top level), from the columns in use like Python's. */
  level: number;
}

interface Tokenized {
  tokens: Token[];
  /** Why the cell cannot become part of a function (a magic, `!cmd`, top-level await, bad syntax). */
  problem?: string;
}

export const KEYWORDS = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally for " +
    "from global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);

// Longest first, so `**=` wins over `**` and `*`.
const OPS = [
  "**=",
  "//=",
  ">>=",
  "<<=",
  "...",
  "->",
  ":=",
  "==",
  "!=",
  "<=",
  ">=",
  "**",
  "//",
  "<<",
  ">>",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
  "@=",
];
const SINGLE = "+-*/%@&|^~<>()[]{},:;.=";

const NAME_START = /[\p{L}_]/u;
const NAME_CHAR = /[\p{L}\p{N}_]/u;
// Sticky: matched at an offset without slicing the rest of the cell.
const STRING_PREFIX = /(?:[rRbBuUfF]{1,2})?(?:'''|"""|'|")/y;
const NUMBER =
  /(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)/y;

/** ASCII by comparison (most code), other letters by Unicode class. */
function isNameChar(c: string, first: boolean): boolean {
  const code = c.charCodeAt(0);
  if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95) return true;
  if (code >= 48 && code <= 57) return !first;
  if (code < 128) return false;
  return (first ? NAME_START : NAME_CHAR).test(c);
}

/** Tokens of one cell, with each logical line's indentation level. */
export function tokenize(source: string): Tokenized {
  const tokens: Token[] = [];
  const levels = [0];
  let depth = 0;
  let lineStart = true; // at the start of a logical line: its first token sets the level
  let level = 0;
  let problem: string | undefined;
  let i = 0;
  const push = (kind: TokenKind, start: number, end: number) =>
    tokens.push({ kind, text: source.slice(start, end), start, end, depth, level });

  while (i < source.length) {
    const c = source[i] as string;
    if (c === "\n") {
      if (depth === 0 && !lineStart) {
        push("newline", i, i + 1);
        lineStart = true;
      }
      i++;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r" || c === "\f") {
      i++;
      continue;
    }
    if (c === "\\" && source[i + 1] === "\n") {
      i += 2; // explicit line joining
      continue;
    }
    if (c === "#") {
      const end = source.indexOf("\n", i);
      push("comment", i, end < 0 ? source.length : end);
      i = end < 0 ? source.length : end;
      continue;
    }
    if (lineStart) {
      const column = i - (source.lastIndexOf("\n", i - 1) + 1);
      while (levels.length > 1 && column < (levels.at(-1) as number)) levels.pop();
      if (column > (levels.at(-1) as number)) levels.push(column);
      level = levels.length - 1;
      lineStart = false;
      if (depth === 0 && (c === "!" || c === "%")) problem ??= "uses an IPython magic or `!command`";
    }
    STRING_PREFIX.lastIndex = i;
    const quote = c === "'" || c === '"' || "rRbBuUfF".includes(c) ? STRING_PREFIX.exec(source) : null;
    if (quote && (quote[0].length > 1 || c === "'" || c === '"')) {
      const end = stringEnd(source, i, quote[0]);
      if (end < 0) {
        problem ??= "has an unterminated string";
        push("string", i, source.length);
        break;
      }
      push("string", i, end);
      i = end;
      continue;
    }
    if (isNameChar(c, true)) {
      let j = i + 1;
      while (j < source.length && isNameChar(source[j] as string, false)) j++;
      push("name", i, j);
      i = j;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = (c >= "0" && c <= "9") || c === "." ? NUMBER.exec(source) : null;
    if (number && number[0] !== ".") {
      push("number", i, i + number[0].length);
      i += number[0].length;
      continue;
    }
    const op = SINGLE.includes(c)
      ? (OPS.find((o) => source.startsWith(o, i)) ?? c)
      : c === "!" && source[i + 1] === "="
        ? "!="
        : undefined;
    if (op) {
      if (op === ")" || op === "]" || op === "}") depth = Math.max(0, depth - 1);
      push("op", i, i + op.length);
      if (op === "(" || op === "[" || op === "{") depth++;
      i += op.length;
      continue;
    }
    // `?` (IPython help), `$`, a stray backslash: not Python this miner can rebuild.
    problem ??= `has a character Python does not allow here: ${JSON.stringify(c)}`;
    i++;
  }
  if (!lineStart) tokens.push({ kind: "newline", text: "", start: i, end: i, depth, level });
  if (tokens.some((t) => t.kind === "name" && t.text === "await") && !hasAsyncDef(tokens)) {
    problem ??= "uses top-level await";
  }
  return problem ? { tokens, problem } : { tokens };
}

function hasAsyncDef(tokens: Token[]): boolean {
  return tokens.some((t, k) => t.text === "async" && tokens[k + 1]?.text === "def");
}

/** Offset just past the string starting at `start` with prefix+quote `opening`, or -1 when unterminated. */
function stringEnd(source: string, start: number, opening: string): number {
  const quote = opening.slice(opening.search(/['"]/));
  let i = start + opening.length;
  while (i < source.length) {
    const c = source[i];
    if (c === "\\") {
      // Even in a raw string a backslash keeps the next quote from closing it.
      i += 2;
      continue;
    }
    if (quote.length === 1 && c === "\n") return -1;
    if (source.startsWith(quote, i)) return i + quote.length;
    i++;
  }
  return -1;
}

/** Tokens without comments, split into statements (logical lines, and `;` at depth 0). */
export function statements(tokens: readonly Token[]): Token[][] {
  const out: Token[][] = [];
  let current: Token[] = [];
  for (const t of tokens) {
    if (t.kind === "comment") continue;
    if (t.kind === "newline" || (t.kind === "op" && t.text === ";" && t.depth === 0)) {
      if (current.length > 0) out.push(current);
      current = [];
      continue;
    }
    current.push(t);
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** An f-string embeds code: it cannot become a parameter, and names inside it are not seen. */
export function isFString(t: Token): boolean {
  if (t.kind !== "string") return false;
  const prefix = /^[a-zA-Z]*/.exec(t.text)?.[0] ?? "";
  return /f/i.test(prefix);
}

/** A literal's value in a form that compares equal for equal Python values ('a' and "a"). */
export function literalValue(t: Token): string {
  if (t.kind === "number") {
    const plain = t.text.replace(/_/g, "");
    if (/^\d+$/.test(plain)) return `int:${BigInt(plain).toString()}`;
    if (/^[\d.]+(?:[eE][+-]?\d+)?$/.test(plain)) return `float:${Number(plain)}`;
    return `num:${plain.toLowerCase()}`;
  }
  const prefix = (/^[a-zA-Z]*/.exec(t.text)?.[0] ?? "").toLowerCase();
  const body = t.text.slice(prefix.length);
  const q = body.startsWith('"""') || body.startsWith("'''") ? 3 : 1;
  const inner = body.slice(q, body.length - q);
  const kind = prefix.includes("b") ? "bytes" : "str";
  // Only strings without escapes compare by value; others by their exact source.
  if (prefix.includes("r") || !inner.includes("\\")) return `${kind}:${inner}`;
  return `${kind}-src:${t.text}`;
}
