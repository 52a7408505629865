// A short-lived lock across processes, taken synchronously: the schedule files are written from timer
// callbacks and CLI commands that hold it for a millisecond or two (an append, or a compaction of a
// small file), so a caller may block instead of becoming async.

import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { processExists } from "../config/process.js";

const POLL_MS = 5;
const pause = new Int32Array(new SharedArrayBuffer(4));

export class FileLockTimeout extends Error {
  override name = "FileLockTimeout";
}

function holder(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined; // being written, or just removed: look again
  }
}

function alive(path: string, text: string): boolean {
  const pid = Number.parseInt(text, 10);
  if (text === "") return recent(path); // its owner is writing its pid, or died before it could
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false; // never nested here: one left by this process is stale
  return processExists(pid);
}

function recent(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < 1000;
  } catch {
    return true;
  }
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

/**
 * Runs `fn` holding the lock file `path` (it holds the owner's pid; one left by a process that died is
 * taken over). Throws FileLockTimeout after `waitMs` if a live process keeps it.
 */
export function withFileLock<T>(path: string, fn: () => T, waitMs = 10_000): T {
  const deadline = Date.now() + waitMs;
  while (!tryAcquire(path)) {
    const text = holder(path);
    if (text !== undefined && !alive(path, text)) {
      // Removed only if it still names the dead owner: another process may have broken it already.
      if (holder(path) === text) rmSync(path, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new FileLockTimeout(`${path} has been held for over ${waitMs} ms by a running process`);
    }
    Atomics.wait(pause, 0, 0, POLL_MS);
  }
  try {
    return fn();
  } finally {
    rmSync(path, { force: true });
  }
}
