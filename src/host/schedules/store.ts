// A session's schedules on disk: sessions/ID/schedules.jsonl, one record a line, appended under a lock
// and compacted in place once it has grown, so that reading it (several times a tick by the host,
// every second by the waker) costs the same after a month of ticks as after a minute.

import {
  closeSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { writePrivateFile } from "../../config/private-file.js";
import { sessionsDir } from "../../session/index.js";
import { withFileLock } from "../file-lock.js";

/**
 * `at` is an absolute time once added (a zone-less time is read in the adder's zone then), and `tz` is
 * the zone a cron expression was given in: a job is read by whichever process runs (a host, the waker,
 * relm schedule list), each with its own TZ. Jobs added before `tz` existed have none (local time).
 */
export type JobTiming = { every: string } | { at: string } | { cron: string; tz?: string };

export interface Job {
  id: string;
  session: string;
  timing: JobTiming;
  prompt: string;
  created: string;
}

export interface Pause {
  /** When it was paused. */
  since: string;
  /** What paused it, e.g. "relm shutdown". */
  reason: string;
}

type ClaimRecord = { op: "claim"; job: string; due: string; at: string; merged: number };

type ScheduleRecord =
  | { op: "add"; job: Job }
  | { op: "cancel"; job: string; at: string }
  | ClaimRecord
  | { op: "pause"; job: string; at: string; reason: string }
  | { op: "resume"; job: string; at: string };

/** A job with every record about it applied. */
interface StoredJob extends Job {
  cancelled: boolean;
  /** The last claim (the due time of the last tick delivered, at most once). */
  claim?: ClaimRecord;
  paused?: Pause;
  /** When it was last resumed: ticks due while it was paused are not owed. */
  resumed?: string;
}

const FILE = "schedules.jsonl";
const LOCK = "schedules.lock";
/** Below this size a file is never compacted (a few hundred records: well under a millisecond to read). */
const COMPACT_MIN_BYTES = 32 * 1024;

/** Size of each file after it was last compacted here, so that a file of many live jobs is not rewritten at every append. */
const compactedSize = new Map<string, number>();

export function scheduleFile(home: string, session: string): string {
  return join(sessionsDir(home), session, FILE);
}

/**
 * Parsed files by path, with the identity of the file they were read from: the waker looks at every
 * session's file each second and a host several times a tick, and most looks find nothing changed.
 * An append changes the size, a compaction the inode; then the file is read again.
 */
const parsed = new Map<string, { key: string; jobs: StoredJob[] }>();

/** The jobs recorded in `path`, in the order they were added. Shared between callers: do not mutate. */
export function readJobs(path: string): StoredJob[] {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) {
    parsed.delete(path);
    return [];
  }
  const key = `${st.ino}:${st.size}:${st.mtimeMs}`;
  const known = parsed.get(path);
  if (known?.key === key) return known.jobs;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return []; // the session was just deleted
    throw e;
  }
  // Read after the stat: what is kept is at least as new as the key, and a later change alters the key.
  const jobs = [...fold(text).values()];
  parsed.set(path, { key, jobs });
  return jobs;
}

function fold(text: string): Map<string, StoredJob> {
  const jobs = new Map<string, StoredJob>();
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let record: ScheduleRecord;
    try {
      record = JSON.parse(line) as ScheduleRecord;
    } catch {
      continue; // a line torn by a crash: the claim it held was never acted on
    }
    if (record.op === "add") {
      jobs.set(record.job.id, { ...record.job, cancelled: false });
      continue;
    }
    const job = jobs.get(record.job);
    if (!job) continue;
    if (record.op === "cancel") job.cancelled = true;
    else if (record.op === "claim") job.claim = record;
    else if (record.op === "pause") job.paused = { since: record.at, reason: record.reason };
    else {
      job.paused = undefined;
      job.resumed = record.at;
    }
  }
  return jobs;
}

/**
 * Appends records to a session's file under its lock, and waits until they are on disk (a claim must
 * be, before its tick is delivered: after a crash it is never delivered again). A file that has grown
 * is compacted before the lock is released.
 */
export function appendRecords(home: string, session: string, records: ScheduleRecord[]): void {
  if (records.length === 0) return;
  const path = scheduleFile(home, session);
  withFileLock(join(dirname(path), LOCK), () => {
    const fd = openSync(path, "a+", 0o600);
    let size: number;
    try {
      // A line torn by a crash would swallow the first record written after it.
      const lead = endsTorn(fd) ? "\n" : "";
      writeSync(fd, lead + records.map((r) => `${JSON.stringify(r)}\n`).join(""));
      fsyncSync(fd);
      size = fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
    if (size < Math.max(COMPACT_MIN_BYTES, 2 * (compactedSize.get(path) ?? 0))) return;
    try {
      compact(path);
    } catch {
      // The records are on disk already; the file stays as it is until the next append tries again.
    }
  });
}

function endsTorn(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

/**
 * Rewrites the file as the shortest one with the same meaning: each live job's add record, its last
 * claim and its pause or resume; cancelled jobs go. Written beside it, synced, then renamed over it
 * (writePrivateFile), so a reader or a crash sees the old file or the new one, never a mixture. The caller holds the lock:
 * nothing is appended meanwhile.
 */
function compact(path: string): void {
  const lines: string[] = [];
  for (const job of fold(readFileSync(path, "utf8")).values()) {
    if (job.cancelled) continue;
    const { cancelled: _c, claim, paused, resumed, ...added } = job;
    lines.push(JSON.stringify({ op: "add", job: added }));
    if (claim) lines.push(JSON.stringify(claim));
    if (paused)
      lines.push(JSON.stringify({ op: "pause", job: job.id, at: paused.since, reason: paused.reason }));
    else if (resumed) lines.push(JSON.stringify({ op: "resume", job: job.id, at: resumed }));
  }
  const text = lines.map((l) => `${l}\n`).join("");
  writePrivateFile(path, text);
  syncDirectory(dirname(path));
  compactedSize.set(path, Buffer.byteLength(text));
}

/** Makes a rename durable (the directory entry is what changed). */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // not supported here (some systems refuse fsync on a directory): the rename itself is atomic
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
