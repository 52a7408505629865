// The one lock relm takes across processes: a file created with O_EXCL that names its holder — pid,
// machine, the process's start time and when it took the lock. A lock whose holder is gone is taken
// over, so a crash never leaves one behind for good: gone means no such process on this machine, or a
// process that started at another time (its pid was reused), or a lock older than the caller's maximum
// age. A lock from another machine (a shared RELM_HOME) cannot be judged and is waited for.
//
// Three ways to hold one: withPidLockSync (short critical sections called from code that cannot be
// async: it blocks the thread while it waits), withPidLock (async, polling with backoff) and
// acquirePidLock / tryPidLock (held until released, e.g. for a process's life). Each caller says what
// a timeout means to its user through `busyError`.

import { randomBytes } from "node:crypto";
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { processExists, processStartTime } from "./process.js";
import { asRecord, parseJson } from "./records.js";

/** Who holds a lock, as its file says. Locks written before relm recorded all of it name only a pid. */
export interface LockHolder {
  pid: number;
  /** The machine it runs on; absent in older locks (taken to be this one). */
  host?: string;
  /** processStartTime() of the holder, where /proc tells it. */
  started?: number;
  /** When it took the lock (ISO time). */
  since?: string;
}

interface PidLockOptions {
  /** How long to wait while a live process holds it (default 10 s; acquirePidLock: 0, no wait). */
  waitMs?: number;
  /** A lock older than this is taken over even from a live holder (one that hung). */
  maxAgeMs?: number;
  /** The error for a lock still held when the wait is over; the holder is undefined when unreadable. */
  busyError?: (holder: LockHolder | undefined, path: string) => Error;
}

/** A lock this process holds; release() is idempotent and never removes a lock it no longer owns. */
export interface PidLock {
  readonly path: string;
  release(): void;
}

const DEFAULT_WAIT_MS = 10_000;
/** How long a lock file may stay empty or unreadable: its holder between creating it and writing it. */
const WRITING_GRACE_MS = 2_000;
/** Polls start this often and back off to MAX_POLL_MS. */
const FIRST_POLL_MS = 2;
const MAX_POLL_MS = 25;

/**
 * The locks this process holds (absolute path → its text): one held here is live, any other naming this
 * pid is not. One map per process, kept under a registered symbol, because this module can be loaded
 * twice in one process (the detached host's unbundled modules and the CLI bundle: src/config/errors.ts).
 */
const HELD = Symbol.for("relm.pid-locks.held");
const heldHere: Map<string, string> =
  ((globalThis as Record<symbol, unknown>)[HELD] as Map<string, string> | undefined) ??
  new Map<string, string>();
(globalThis as Record<symbol, unknown>)[HELD] = heldHere;

const pause = new Int32Array(new SharedArrayBuffer(4));

type Attempt = { lock: PidLock } | { again: true } | { busy: LockHolder | undefined };

/** Runs `fn` holding the lock `path`, blocking the thread while another process holds it. */
export function withPidLockSync<T>(path: string, fn: () => T, options: PidLockOptions = {}): T {
  const lock = takeSync(path, options.waitMs ?? DEFAULT_WAIT_MS, options);
  try {
    return fn();
  } finally {
    lock.release();
  }
}

/** Runs `fn` holding the lock `path`; waits (polling, with backoff) while another holder has it. */
export async function withPidLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: PidLockOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.waitMs ?? DEFAULT_WAIT_MS);
  for (let delay = FIRST_POLL_MS; ; ) {
    const attempt = attemptOnce(path, options.maxAgeMs);
    if ("lock" in attempt) {
      try {
        return await fn();
      } finally {
        attempt.lock.release();
      }
    }
    if ("again" in attempt) continue;
    if (Date.now() >= deadline) throw busyError(path, attempt.busy, options);
    await sleep(delay);
    delay = Math.min(delay * 2, MAX_POLL_MS);
  }
}

/** Takes the lock `path` until release(); throws busyError at once (or after waitMs) while it is held. */
export function acquirePidLock(path: string, options: PidLockOptions = {}): PidLock {
  return takeSync(path, options.waitMs ?? 0, options);
}

/** Takes the lock `path` if nobody live holds it, without waiting; undefined when somebody does. */
export function tryPidLock(path: string): PidLock | undefined {
  for (;;) {
    const attempt = attemptOnce(path, undefined);
    if ("lock" in attempt) return attempt.lock;
    if ("busy" in attempt) return undefined;
  }
}

function takeSync(path: string, waitMs: number, options: PidLockOptions): PidLock {
  const deadline = Date.now() + waitMs;
  for (let delay = FIRST_POLL_MS; ; ) {
    const attempt = attemptOnce(path, options.maxAgeMs);
    if ("lock" in attempt) return attempt.lock;
    if ("again" in attempt) continue;
    // Held by this very thread: waiting (which blocks it) could never end.
    if (Date.now() >= deadline || heldHere.has(resolve(path))) throw busyError(path, attempt.busy, options);
    Atomics.wait(pause, 0, 0, delay);
    delay = Math.min(delay * 2, MAX_POLL_MS);
  }
}

function busyError(path: string, holder: LockHolder | undefined, options: PidLockOptions): Error {
  if (options.busyError) return options.busyError(holder, path);
  const who = holder ? `process ${holder.pid}${holder.host ? ` on ${holder.host}` : ""}` : "another process";
  return new Error(`${path} is held by ${who}; if no relm is running there, delete that file`);
}

/** One try: the lock; or `again` when its holder turned out gone (now removed); or who keeps it. */
function attemptOnce(path: string, maxAgeMs: number | undefined): Attempt {
  const key = resolve(path);
  if (heldHere.has(key)) return { busy: ownHolder() };
  const lock = create(path, key);
  if (lock) return { lock };
  const seen = inspect(path, maxAgeMs);
  if (seen.state === "gone") return { again: true };
  if (seen.state === "live") return { busy: seen.holder };
  breakStale(path, seen.text);
  return { again: true };
}

let me: LockHolder | undefined;

function ownHolder(): LockHolder {
  me ??= { pid: process.pid, host: hostname(), started: processStartTime(process.pid) };
  return me;
}

function create(path: string, key: string): PidLock | undefined {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  }
  const text = JSON.stringify({ ...ownHolder(), since: new Date().toISOString() });
  try {
    writeSync(fd, text);
  } catch (error) {
    rmSync(path, { force: true }); // an empty lock (a full disk) would hold others off for a while
    throw error;
  } finally {
    closeSync(fd);
  }
  heldHere.set(key, text);
  return {
    path,
    release: () => {
      if (heldHere.get(key) !== text) return;
      heldHere.delete(key);
      // Only while it is still ours: one taken over from us (past maxAgeMs) is someone else's now.
      if (readText(path) === text) rmSync(path, { force: true });
    },
  };
}

type Seen =
  | { state: "gone" }
  | { state: "live"; holder: LockHolder | undefined }
  | { state: "stale"; text: string };

/** What the lock file at `path` says about its holder. */
function inspect(path: string, maxAgeMs: number | undefined): Seen {
  let text: string;
  let ageMs: number;
  try {
    text = readFileSync(path, "utf8");
    ageMs = Date.now() - statSync(path).mtimeMs;
  } catch (error) {
    // Released meanwhile: try again. Unreadable (another user's): nothing to judge it by.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: "gone" };
    return { state: "live", holder: undefined };
  }
  if (maxAgeMs !== undefined && ageMs > maxAgeMs) return { state: "stale", text };
  const holder = parseHolder(text);
  if (!holder) return ageMs < WRITING_GRACE_MS ? { state: "live", holder } : { state: "stale", text };
  if (holder.host !== undefined && holder.host !== hostname()) return { state: "live", holder };
  // This process's own, when not held here (attemptOnce looked first): left by it, or by an earlier
  // process given the same pid, and never released.
  const live =
    holder.pid !== process.pid &&
    processExists(holder.pid) &&
    (holder.started === undefined || holder.started === processStartTime(holder.pid));
  return live ? { state: "live", holder } : { state: "stale", text };
}

/** The holder a lock names: JSON, or the older plain `PID` and `PID STARTTIME`; undefined when neither. */
function parseHolder(text: string): LockHolder | undefined {
  const plain = /^(\d+)(?: (\d+))?$/.exec(text.trim());
  if (plain)
    return validPid(Number(plain[1]))
      ? { pid: Number(plain[1]), started: plain[2] === undefined ? undefined : Number(plain[2]) }
      : undefined;
  const v = asRecord(parseJson(text));
  if (!v || !validPid(v.pid)) return undefined;
  return {
    pid: v.pid,
    host: typeof v.host === "string" ? v.host : undefined,
    started: typeof v.started === "number" ? v.started : undefined,
    since: typeof v.since === "string" ? v.since : undefined,
  };
}

function validPid(pid: unknown): pid is number {
  return typeof pid === "number" && Number.isInteger(pid) && pid > 0;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Removes the stale lock that read `text`. Moved aside first (rename is atomic) and checked there: had
 * another process broken it and taken the lock meanwhile, the lock moved is that new one, which is put
 * back (link, which never replaces a lock made since) instead of deleted.
 */
function breakStale(path: string, text: string): void {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // broken by someone else already
    throw error;
  }
  try {
    if (readText(aside) !== text) linkSync(aside, path);
  } catch {
    // A new lock is there already: it holds, and the one moved aside lost its file (a three-way race).
  } finally {
    rmSync(aside, { force: true });
  }
}
