import { randomBytes } from "node:crypto";
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { parseDuration } from "../config/duration.js";
import { UserError } from "../config/errors.js";
import { cronLib } from "../config/lazy.js";
import { sessionsDir } from "../session/index.js";

export type JobTiming = { every: string } | { at: string } | { cron: string };

export interface Job {
  id: string;
  session: string;
  timing: JobTiming;
  prompt: string;
  created: string;
}

export interface JobState extends Job {
  /** Due time of the last tick claimed (delivered at most once). */
  lastClaimed?: string;
  /** When the next tick is due; undefined when the job is finished (an --at that fired). */
  next?: Date;
  cancelled: boolean;
}

type Record =
  | { op: "add"; job: Job }
  | { op: "cancel"; job: string; at: string }
  | { op: "claim"; job: string; due: string; at: string; merged: number };

export class ScheduleError extends UserError {
  override name = "ScheduleError";
}

const FILE = "schedules.jsonl";
const MIN_EVERY_MS = 1000;

function file(home: string, session: string): string {
  return join(sessionsDir(home), session, FILE);
}

/** Checks a timing and returns it normalised; the message says what is wrong and what would be right. */
export function parseTiming(timing: JobTiming): JobTiming {
  if ("every" in timing) {
    const ms = parseDuration(timing.every, "--every");
    if (ms < MIN_EVERY_MS) throw new ScheduleError(`--every ${timing.every}: the shortest interval is 1s`);
    return timing;
  }
  if ("at" in timing) {
    if (Number.isNaN(Date.parse(timing.at))) {
      throw new ScheduleError(
        `--at "${timing.at}": not a date and time; use ISO 8601, e.g. 2026-12-24T09:00:00Z`,
      );
    }
    return timing;
  }
  let next: Date | null;
  try {
    next = new (cronLib().Cron)(timing.cron, { paused: true }).nextRun();
  } catch (error) {
    throw new ScheduleError(
      `--cron "${timing.cron}": ${(error as Error).message.replace(/^CronPattern: /, "")}`,
    );
  }
  // "0 0 30 2 *" (February 30th) parses, but a job that never ticks is a mistake, not a schedule.
  if (!next) throw new ScheduleError(`--cron "${timing.cron}": no date ever matches it`);
  return timing;
}

function append(home: string, session: string, record: Record, durable: boolean): void {
  const fd = openSync(file(home, session), "a", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(record)}\n`);
    // A claim must be on disk before its tick is delivered: after a crash it is never delivered again.
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function addJob(home: string, session: string, timing: JobTiming, prompt: string): Job {
  if (!prompt.trim())
    throw new ScheduleError("a schedule needs a prompt: what the session is told at each tick");
  const job: Job = {
    id: `j${randomBytes(4).toString("hex")}`,
    session,
    timing: parseTiming(timing),
    prompt,
    created: new Date().toISOString(),
  };
  append(home, session, { op: "add", job }, true);
  return job;
}

export function cancelJob(home: string, jobId: string): Job {
  const found = allJobs(home).find((j) => j.id === jobId && !j.cancelled);
  if (!found) throw new ScheduleError(`no active schedule ${jobId}; relm schedule list shows them`);
  append(home, found.session, { op: "cancel", job: jobId, at: new Date().toISOString() }, true);
  return found;
}

export function claimTick(home: string, session: string, job: string, due: Date, merged: number): void {
  append(
    home,
    session,
    { op: "claim", job, due: due.toISOString(), at: new Date().toISOString(), merged },
    true,
  );
}

/** The jobs of one session, with their claims applied. */
export function sessionJobs(home: string, session: string): JobState[] {
  const path = file(home, session);
  if (!existsSync(path)) return [];
  const jobs = new Map<string, JobState>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    let record: Record;
    try {
      record = JSON.parse(line) as Record;
    } catch {
      continue; // a line torn by a crash: the claim it held was never acted on
    }
    if (record.op === "add") jobs.set(record.job.id, { ...record.job, cancelled: false });
    else {
      const job = jobs.get(record.job);
      if (!job) continue;
      if (record.op === "cancel") job.cancelled = true;
      else job.lastClaimed = record.due;
    }
  }
  for (const job of jobs.values()) job.next = job.cancelled ? undefined : nextDue(job);
  return [...jobs.values()];
}

export function allJobs(home: string): JobState[] {
  const root = sessionsDir(home);
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((id) => sessionJobs(home, id));
}

/** The next due time after the last claimed tick (which may already be in the past: a missed tick). */
function nextDue(job: JobState): Date | undefined {
  const since = new Date(job.lastClaimed ?? job.created);
  const t = job.timing;
  if ("at" in t) return job.lastClaimed ? undefined : new Date(t.at);
  if ("every" in t) return new Date(since.getTime() + parseDuration(t.every));
  try {
    return new (cronLib().Cron)(t.cron, { paused: true }).nextRun(since) ?? undefined;
  } catch {
    return undefined; // an expression edited into the file by hand: the job never ticks, nothing crashes
  }
}

/**
 * The ticks of a job that are due at `now`: the latest due time, and how many due times since the last
 * claim it stands for (ticks missed while nothing ran are merged into one).
 */
export function dueTick(job: JobState, now: Date): { due: Date; count: number } | undefined {
  if (!job.next || job.next > now) return undefined;
  const t = job.timing;
  if ("at" in t) return { due: job.next, count: 1 };
  let due = job.next;
  let count = 1;
  for (let i = 0; i < 100_000; i++) {
    const following =
      "every" in t
        ? new Date(due.getTime() + parseDuration(t.every))
        : (new (cronLib().Cron)(t.cron, { paused: true }).nextRun(due) ?? undefined);
    if (!following || following > now) break;
    due = following;
    count++;
  }
  return { due, count };
}

export function describeTiming(t: JobTiming): string {
  return "every" in t ? `every ${t.every}` : "at" in t ? `at ${t.at}` : `cron ${t.cron}`;
}
