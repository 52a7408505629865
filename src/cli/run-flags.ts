// `relm run`'s own options, checked before anything starts: a bad value found after the session's
// kernel is up would leave the user waiting for a start-up that ends in a usage error.
import { checkNumbers, type NumberKey, numberOf, type SessionSpec } from "../config/options.js";
import { takeSpecFile } from "../config/session-spec.js";

const RUN_NUMBERS: readonly NumberKey[] = ["gateTimeout", "maxGateFailures", "idleTimeout"];

/** Throws a UsageError for the first bad value; the budget flags are checked with the session's. */
export function checkRunFlags(flags: SessionSpec): void {
  checkNumbers(flags, RUN_NUMBERS);
}

/** `--idle-timeout SECONDS` in milliseconds, when given. */
export function idleMsOf(flags: SessionSpec): number | undefined {
  const seconds = numberOf(flags, "idleTimeout");
  return seconds === undefined ? undefined : seconds * 1000;
}

/** The options a host was started with: its spec file's (read once and removed) over its command line's. */
export function withSpecFile<T extends SessionSpec>(flags: T): T {
  return flags.spec ? { ...flags, ...takeSpecFile(flags.spec) } : flags;
}
