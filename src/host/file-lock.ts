// A short-lived lock across processes, taken synchronously: the schedule files and the states log are
// written from timer callbacks and CLI commands that hold it for a millisecond or two (an append, or a
// compaction of a small file), so a caller may block instead of becoming async. The lock itself is
// src/config/pid-lock.ts.

import { UserError } from "../config/errors.js";
import { withPidLockSync } from "../config/pid-lock.js";

/** A user error: another relm keeps the file (or a lock outlived its process in a way relm cannot tell). */
export class FileLockTimeout extends UserError {
  override name = "FileLockTimeout";
}

/**
 * Runs `fn` holding the lock file `path` (one left by a process that died is taken over). Throws
 * FileLockTimeout after `waitMs` if a live process keeps it.
 */
export function withFileLock<T>(path: string, fn: () => T, waitMs = 10_000): T {
  return withPidLockSync(path, fn, {
    waitMs,
    busyError: (holder) =>
      new FileLockTimeout(
        `${path} has been held for over ${waitMs} ms by ${holder ? `process ${holder.pid}` : "another process"}; ` +
          "if no relm is running, remove that file and try again",
      ),
  });
}
