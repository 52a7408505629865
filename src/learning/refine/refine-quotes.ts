// An edit's evidence must say which words of the cited events it rests on: a claim the events do not
// support ("the deploy server is in Frankfurt", citing the task) cannot quote them, so it is rejected.

import type { Trajectory } from "./refine-trajectory.js";

/** Shorter quotes ("cell", "ok") would be found almost anywhere. */
const MIN_QUOTE_CHARS = 8;

/** Whitespace runs as one space: the model reflows lines, and blocks are printed indented. */
export function flat(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * `quote` (one string, or a list) from a proposed edit: each must be found verbatim (whitespace aside)
 * in the text of one of the cited events as the refine model was shown it. The quotes as given, or why
 * the edit is rejected.
 */
export function checkQuotes(
  raw: unknown,
  cited: readonly number[],
  trajectory: Pick<Trajectory, "texts">,
): { quotes: string[] } | { reason: string } {
  const missing = {
    reason: `quotes nothing: "quote" must hold the exact words of the cited events the edit rests on`,
  };
  const list = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : undefined;
  if (!list || list.length === 0) return missing;
  const texts = cited.map((n) => flat(trajectory.texts.get(n) ?? ""));
  const quotes: string[] = [];
  for (const item of list) {
    const quote = typeof item === "string" ? flat(item) : "";
    if (quote === "") return missing;
    if (quote.replace(/\s/g, "").length < MIN_QUOTE_CHARS) {
      return {
        reason: `quote ${JSON.stringify(item)} is too short to show anything (at least ${MIN_QUOTE_CHARS} characters)`,
      };
    }
    if (!texts.some((t) => t.includes(quote))) {
      const where = cited.length === 1 ? `event ${cited[0]}` : `events ${cited.join(", ")}`;
      return { reason: `quote ${JSON.stringify(clip(item))} is not found in the cited ${where}` };
    }
    quotes.push(item);
  }
  return { quotes };
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
