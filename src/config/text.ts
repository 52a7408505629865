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
