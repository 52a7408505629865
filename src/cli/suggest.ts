// Telling a mistyped command from a task: `relm agnets` must not start a session about "agnets", and
// `relm "fix the login bug"` must not be refused as an unknown command. The rule (docs/cli.md):
// exactly one argument that is a single word, within edit distance 2 of a command's name or a prefix
// of one, is a typo; anything else that is not a command is a task.

import { UsageError } from "../config/errors.js";
import { editDistance } from "../config/presets.js";

/** The command `word` most likely meant, or undefined when it is not close to any of `names`. */
export function closestCommand(word: string, names: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: { name: string; score: number } | undefined;
  for (const name of names) {
    // A prefix ("ag", "sched") is as good as one typo; an exact name is never asked about.
    const score = name.startsWith(w) ? 1 : editDistance(w, name);
    if (score <= 2 && (!best || score < best.score)) best = { name, score };
  }
  return best?.name;
}

/** A single word of letters, digits, `-` and `_`: what a command name typed by hand looks like. */
const WORD = /^[A-Za-z][\w-]*$/;

/**
 * For the arguments after `relm` (options removed) that are not a command: the command they
 * probably meant, when they are a single word close to one; undefined when they are a task.
 */
export function typoOf(words: readonly string[], names: readonly string[]): string | undefined {
  if (words.length !== 1) return undefined;
  const word = words[0] as string;
  if (!WORD.test(word)) return undefined;
  return closestCommand(word, names);
}

/** Throws when the words are a mistyped command rather than a task (`relm agnets`). */
export function refuseTypo(words: readonly string[], commandNames: readonly string[]): void {
  const meant = typoOf(words, commandNames);
  if (meant) throw new UsageError(`unknown command "${words[0]}" — did you mean "${meant}"?`);
}
