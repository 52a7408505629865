// One git operation at a time per shadow repository, across processes (two sessions in one directory
// share it) and within this one. The lock itself is src/config/pid-lock.ts.

import { withPidLock } from "../config/pid-lock.js";
import { CheckpointError } from "./git.js";

/** A lock file naming its holder; one left by a process that died is taken over. */
export class RepoLock {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly waitMs = 30_000,
  ) {}

  /** Runs `fn` while holding the lock; calls from this process queue up behind each other. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(() =>
      withPidLock(this.path, fn, {
        waitMs: this.waitMs,
        busyError: () =>
          new CheckpointError(
            `the checkpoint repository is busy (lock ${this.path} held for over ${this.waitMs} ms); ` +
              "if no relm is running there, delete that file",
          ),
      }),
    );
    this.tail = result.catch(() => {});
    return result;
  }
}
