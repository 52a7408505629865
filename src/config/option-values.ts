// How the option table (options.ts) reads a number from the person's words: each parser names the flag
// and the value it could not read, so the error says what to write instead.
import { UsageError } from "./errors.js";

/** A positive whole number (turns, tokens, gate failures, gate seconds). */
export function positiveWhole(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`${flag} must be a positive whole number, got "${text}"`);
  return n;
}

/** A positive number (seconds, dollars: "$2" is 2). */
export function positiveNumber(text: string, flag: string): number {
  const n = Number(text.replace(/^\$/, ""));
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a positive number, got "${text}"`);
  return n;
}

/** A fraction from 0 to 1 ("0.2"; 0 turns the thing off). */
export function fraction(text: string, flag: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1)
    throw new UsageError(`${flag} must be a fraction from 0 to 1 (e.g. 0.2), got "${text}"`);
  return n;
}

/** A whole number, 0 allowed (a count that may be turned off). */
export function wholeOrZero(text: string, flag: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} must be a whole number of 0 or more, got "${text}"`);
  return Number(text);
}

/** The longest goal: it is restated at every continuation and after every compaction, so it costs each turn. */
export const MAX_GOAL_CHARS = 4000;

/**
 * A goal's text, trimmed, or a UsageError naming where it was given (`--goal`, `/goal`): one limit for
 * every way a goal is set, said alike.
 */
export function checkGoal(text: string, given: string): string {
  const goal = text.trim();
  if (goal.length > MAX_GOAL_CHARS)
    throw new UsageError(
      `${given} must be at most ${MAX_GOAL_CHARS} characters, got ${goal.length}: ` +
        "put the details in a file and name the file in the goal",
    );
  return goal;
}
