import { closeSync, constants, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { UserError } from "../../config/errors.js";
import { processExists } from "../../config/process.js";

/** Another process holds the lock for longer than we are willing to wait. */
export class HarnessLockError extends UserError {
  override name = "HarnessLockError";
  readonly code = "conflict";
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

interface Holder {
  pid: number;
  host: string;
  since: string;
}

function readHolder(path: string): Holder | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Holder;
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` while holding `path` (created with O_EXCL). Holders only read the log and append one
 * line, so waits are short and synchronous waiting keeps the store's API simple. A lock left by a
 * process of this machine that no longer exists is taken over; one from another machine is reported.
 */
export function withLock<T>(path: string, work: () => T, timeoutMs = 10_000): T {
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (fd !== undefined) {
      try {
        writeSync(
          fd,
          JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }),
        );
      } finally {
        closeSync(fd);
      }
      try {
        return work();
      } finally {
        unlinkSync(path);
      }
    }
    const holder = readHolder(path);
    if (holder && holder.host === hostname() && !processExists(holder.pid)) {
      try {
        unlinkSync(path);
      } catch {
        // Someone else took it over first; try again.
      }
      continue;
    }
    if (Date.now() > deadline) {
      const who = holder
        ? `process ${holder.pid} on ${holder.host} since ${holder.since}`
        : "another process";
      throw new HarnessLockError(
        `the harness is locked by ${who}; if no relm is running there, remove ${path}`,
      );
    }
    sleep(delay);
    delay = Math.min(delay * 2, 50);
  }
}
