// `relm run`'s own numeric flags, checked before anything starts: a bad value found after the session's
// kernel is up would leave the user waiting for a start-up that ends in a usage error.

import { UsageError } from "../config/errors.js";
import type { RunFlags } from "./run-flag-types.js";

export function positiveWhole(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`${flag} must be a positive whole number, got "${value}"`);
  return n;
}

/** `--idle-timeout SECONDS` in milliseconds. */
export function idleMsOf(text: string): number {
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`--idle-timeout must be seconds > 0, got "${text}"`);
  return seconds * 1000;
}

/** Throws a UsageError for the first bad value; the budget flags are checked with the session's. */
export function checkRunFlags(flags: RunFlags): void {
  positiveWhole(flags.gateTimeout, "--gate-timeout");
  positiveWhole(flags.maxGateFailures, "--max-gate-failures");
  if (flags.idleTimeout !== undefined) idleMsOf(flags.idleTimeout);
}
