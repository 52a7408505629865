// One git operation at a time per shadow repository, across processes (two sessions in one directory
// share it) and within this one.

import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { processExists } from "../config/process.js";
import { CheckpointError } from "./git.js";

const POLL_MS = 15;

function holderAlive(path: string): boolean {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(path, "utf8"), 10);
  } catch {
    return true; // it is being written or was just removed: look again on the next poll
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  return processExists(pid);
}

function tryAcquire(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

/** A lock file holding the owner's pid; one left by a process that died is taken over. */
export class RepoLock {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly waitMs = 30_000,
  ) {}

  /** Runs `fn` while holding the lock; calls from this process queue up behind each other. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(() => this.locked(fn));
    this.tail = result.catch(() => {});
    return result;
  }

  private async locked<T>(fn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.waitMs;
    while (!tryAcquire(this.path)) {
      if (!holderAlive(this.path)) {
        rmSync(this.path, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new CheckpointError(
          `the checkpoint repository is busy (lock ${this.path} held for over ${this.waitMs} ms); ` +
            "if no relm is running there, delete that file",
        );
      }
      await sleep(POLL_MS);
    }
    try {
      return await fn();
    } finally {
      rmSync(this.path, { force: true });
    }
  }
}
