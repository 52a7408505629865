// The harness store's lock (its revision log and verdicts): holders only read the log and append one
// line, so waits are short and synchronous waiting keeps the store's API simple. The lock itself is
// src/config/pid-lock.ts; a lock from another machine is never taken over, only reported.
import { UserError } from "../../config/errors.js";
import { type LockHolder, withPidLockSync } from "../../config/pid-lock.js";

/** Another process holds the lock for longer than we are willing to wait. */
class HarnessLockError extends UserError {
  override name = "HarnessLockError";
  readonly code = "conflict";
}

function describe(holder: LockHolder | undefined): string {
  if (!holder) return "another process";
  return `process ${holder.pid}${holder.host ? ` on ${holder.host}` : ""}${holder.since ? ` since ${holder.since}` : ""}`;
}

/** Runs `work` while holding `path`; throws HarnessLockError after `timeoutMs` while another holds it. */
export function withLock<T>(path: string, work: () => T, timeoutMs = 10_000): T {
  return withPidLockSync(path, work, {
    waitMs: timeoutMs,
    busyError: (holder) =>
      new HarnessLockError(
        `the harness is locked by ${describe(holder)}; if no relm is running there, remove ${path}`,
      ),
  });
}
