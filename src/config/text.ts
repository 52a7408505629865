// Text shown in one line (a listing's column, an error's server message, a progress step): one home for
// every layer's version, so the same text reads the same in each.

/**
 * `text` on one line: each run of whitespace (newlines included) becomes one space and the ends are
 * trimmed; longer than `max` characters, it is cut to `max` with an ellipsis as the last one.
 */
export function oneLine(text: string, max = Number.POSITIVE_INFINITY): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The first line of `text` that is not blank, without its own leading and trailing whitespace, cut like oneLine(). */
export function firstLine(text: string, max: number): string {
  const line = text.trim().split("\n")[0]?.trimEnd() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * Text written by someone else (a project file, a kernel) as it may be shown, to a terminal or a model:
 * control, format (bidi overrides, zero-width) and line-separator characters written as visible
 * `\uXXXX` escapes, so that an escape sequence or a carriage return cannot hide part of a command from
 * the user approving it.
 */
export function printable(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, escaped);
}

/** A character written as its visible `\uXXXX` escape. */
function escaped(c: string): string {
  return `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, "0")}`;
}

// An escape sequence (CSI with its parameters; OSC, DCS and the other string commands up to their BEL or
// ST; a two-character one) and every other C0 or C1 control character but tab and newline. A string
// command without its end loses only its introducer: the rest stays visible, as text.
const TERMINAL_CONTROLS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b[\]P^_X]|[\u0090\u0098\u009d-\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|\u001b[ -/]*[0-~]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// Characters that reorder what follows them on screen (bidi embeddings, overrides and isolates).
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text a kernel or a model wrote (a cell's code and output, an answer, a file name), as a line-based
 * front end prints it to a terminal: escape sequences and control characters other than tab and newline
 * are left out (so output cannot move the cursor, blank a line, retitle the window or set the clipboard
 * with OSC 52), and bidi controls are written as visible `\uXXXX` (so code cannot read in another order
 * than it runs).
 */
export function terminalText(text: string): string {
  return text.replace(TERMINAL_CONTROLS, "").replace(BIDI_CONTROLS, escaped);
}
