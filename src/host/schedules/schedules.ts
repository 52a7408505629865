import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { parseDuration } from "../../config/duration.js";
import { UsageError, UserError } from "../../config/errors.js";
import { cronLib } from "../../config/lazy.js";
import { sessionsDir } from "../../session/index.js";
import { MAX_MESSAGE_BYTES } from "../inbound.js";
import { appendRecords, type Job, type JobTiming, type Pause, readJobs, scheduleFile } from "./store.js";

export type { JobTiming } from "./store.js";

export interface JobState extends Job {
  /** Due time of the last tick claimed (delivered at most once). */
  lastClaimed?: string;
  /** When the next tick is due; undefined when the job is finished (an --at that fired). */
  next?: Date;
  cancelled: boolean;
  /** Set while the job is paused (by relm shutdown or relm schedule pause): no tick is delivered. */
  paused?: Pause;
  /** When it was last resumed. */
  resumed?: string;
}

class ScheduleError extends UserError {
  override name = "ScheduleError";
}

const MIN_EVERY_MS = 1000;
/**
 * How far in the past an --at time may be and still be taken (it then fires at once): clocks of two
 * machines, or a time typed as "now", differ by seconds. Beyond that the time is a mistake (a wrong day,
 * a local time read as UTC), and a job that fires at once is not what was asked for.
 */
const AT_SKEW_MS = 60_000;

/**
 * How an error quotes the timing it refuses, in the words it was given with: relm schedule's flags
 * (`--every 0s`) unless the caller says otherwise (`/heartbeat 0s`, schedule(every="0s") in Python).
 */
type SayTiming = (key: "every" | "at" | "cron", value: string) => string;

const AS_FLAGS: SayTiming = (key, value) => (key === "every" ? `--every ${value}` : `--${key} "${value}"`);

/**
 * Checks a timing and returns it normalised; the message says what is wrong and what would be right.
 * Every refusal is a usage error (exit 2): the timing is a flag's value (--every, --at, --cron), and a
 * malformed duration already was one (parseDuration), so "--every 0s" must not exit 1 where "--every x" exits 2.
 */
export function parseTiming(timing: JobTiming, now = new Date(), say: SayTiming = AS_FLAGS): JobTiming {
  if ("every" in timing) {
    const given = say("every", timing.every);
    let ms: number;
    try {
      ms = parseDuration(timing.every);
    } catch {
      throw new UsageError(`${given}: not a duration; use e.g. 90s, 30m, 1h30m or a number of seconds`);
    }
    if (ms < MIN_EVERY_MS) throw new UsageError(`${given}: the shortest interval is 1s`);
    return timing;
  }
  if ("at" in timing) {
    if (Number.isNaN(Date.parse(timing.at))) {
      throw new UsageError(
        `${say("at", timing.at)}: not a date and time; use ISO 8601, e.g. 2026-12-24T09:00:00Z`,
      );
    }
    const at = new Date(timing.at);
    if (at.getTime() < now.getTime() - AT_SKEW_MS) {
      throw new UsageError(
        `${say("at", timing.at)} is in the past (${at.toISOString()}; now is ${now.toISOString()}): ` +
          "give a future time (a zone-less time is read as local time), or use relm send to tell the session now",
      );
    }
    // Kept as the instant it names here: read again elsewhere, a zone-less time would move with the reader's zone.
    return { at: at.toISOString() };
  }
  const zoned = { cron: timing.cron, tz: timing.tz ?? localZone() };
  let next: Date | null;
  try {
    next = cronOf(zoned).nextRun();
  } catch (error) {
    throw new UsageError(
      `${say("cron", timing.cron)}: ${(error as Error).message.replace(/^CronPattern: /, "")}`,
    );
  }
  // "0 0 30 2 *" (February 30th) parses, but a job that never ticks is a mistake, not a schedule.
  if (!next) throw new UsageError(`${say("cron", timing.cron)}: no date ever matches it`);
  return zoned;
}

/** The zone this process reads local times in (TZ, else the system's). */
function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** A cron job's schedule, in the zone it was given in (local time for a job that recorded none). */
function cronOf(t: { cron: string; tz?: string }) {
  return new (cronLib().Cron)(t.cron, { paused: true, ...(t.tz ? { timezone: t.tz } : {}) });
}

/**
 * The longest prompt a job may have: each tick is a message to the session, which a host refuses over
 * MAX_MESSAGE_BYTES, and the tick's text adds its timing and a note on missed ticks to the prompt.
 */
export const MAX_PROMPT_BYTES = MAX_MESSAGE_BYTES - 512;

export function addJob(
  home: string,
  session: string,
  timing: JobTiming,
  prompt: string,
  say?: SayTiming,
): Job {
  if (!prompt.trim())
    throw new ScheduleError("a schedule needs a prompt: what the session is told at each tick");
  // Over it, every tick would be claimed and then refused by the host, unseen.
  const bytes = Buffer.byteLength(prompt);
  if (bytes > MAX_PROMPT_BYTES)
    throw new ScheduleError(
      `a schedule's prompt is at most ${MAX_PROMPT_BYTES} bytes (this one is ${bytes}): each tick is a message to the session; put the long text in a file and name the file in the prompt`,
    );
  const job: Job = {
    id: `j${randomBytes(4).toString("hex")}`,
    session,
    timing: parseTiming(timing, new Date(), say),
    prompt,
    created: new Date().toISOString(),
  };
  appendRecords(home, session, [{ op: "add", job }]);
  return job;
}

export function cancelJob(home: string, jobId: string): Job {
  const found = allJobs(home).find((j) => j.id === jobId && !j.cancelled);
  if (!found) throw new ScheduleError(`no active schedule ${jobId}; relm schedule list shows them`);
  appendRecords(home, found.session, [{ op: "cancel", job: jobId, at: new Date().toISOString() }]);
  return found;
}

export function claimTick(home: string, session: string, job: string, due: Date, merged: number): void {
  appendRecords(home, session, [
    { op: "claim", job, due: due.toISOString(), at: new Date().toISOString(), merged },
  ]);
}

/** The jobs of one session, with their claims applied. */
export function sessionJobs(home: string, session: string): JobState[] {
  return readJobs(scheduleFile(home, session)).map(({ claim, ...stored }) => {
    const job: JobState = { ...stored, ...(claim ? { lastClaimed: claim.due } : {}) };
    job.next = job.cancelled ? undefined : nextDue(job);
    return job;
  });
}

/** Jobs with ticks to come that are not paused: what a host delivers and the waker wakes sessions for. */
export function activeJobs(jobs: JobState[]): JobState[] {
  return jobs.filter((j) => !j.cancelled && j.next !== undefined && !j.paused);
}

/**
 * Pauses the active jobs `which` accepts (default all): they keep their place but deliver nothing, and
 * wake nothing, until resumed. Returns the jobs it paused.
 */
export function pauseJobs(
  home: string,
  reason: string,
  which: (job: JobState) => boolean = () => true,
): JobState[] {
  const at = new Date().toISOString();
  const paused: JobState[] = [];
  for (const session of sessionIds(home)) {
    const jobs = activeJobs(sessionJobs(home, session)).filter(which);
    appendRecords(
      home,
      session,
      jobs.map((j) => ({ op: "pause", job: j.id, at, reason })),
    );
    paused.push(...jobs.map((j) => ({ ...j, paused: { since: at, reason } })));
  }
  return paused;
}

/**
 * Resumes paused jobs (those `which` accepts; default all). A resumed job owes no tick that fell due
 * while it was paused: its next tick is the first one after now (an --at time that passed fires now).
 */
export function resumeJobs(home: string, which: (job: JobState) => boolean = () => true): JobState[] {
  const at = new Date().toISOString();
  const resumed: JobState[] = [];
  for (const session of sessionIds(home)) {
    const jobs = sessionJobs(home, session).filter((j) => !j.cancelled && j.paused && which(j));
    appendRecords(
      home,
      session,
      jobs.map((j) => ({ op: "resume", job: j.id, at })),
    );
    resumed.push(...sessionJobs(home, session).filter((j) => jobs.some((p) => p.id === j.id)));
  }
  return resumed;
}

function sessionIds(home: string): string[] {
  const root = sessionsDir(home);
  return existsSync(root) ? readdirSync(root) : [];
}

export function allJobs(home: string): JobState[] {
  return sessionIds(home).flatMap((id) => sessionJobs(home, id));
}

/** The next due time after the last claimed tick (which may already be in the past: a missed tick). */
function nextDue(job: JobState): Date | undefined {
  const t = job.timing;
  // Ticks that fell due while the job was paused are not owed: it counts again from its resume.
  const base = job.lastClaimed ?? job.created;
  const since = new Date(job.resumed && job.resumed > base && !("at" in t) ? job.resumed : base);
  if ("at" in t) return job.lastClaimed ? undefined : new Date(t.at);
  if ("every" in t) return new Date(since.getTime() + parseDuration(t.every));
  try {
    return cronOf(t).nextRun(since) ?? undefined;
  } catch {
    return undefined; // an expression edited into the file by hand: the job never ticks, nothing crashes
  }
}

/** Missed cron ticks counted one by one at most; beyond it a merged tick says "over" this many. */
const MAX_COUNTED = 10_000;

/**
 * The ticks of a job that are due at `now`: the latest due time, and how many due times since the last
 * claim it stands for (ticks missed while nothing ran are merged into one). The latest is found
 * directly, never by stepping through the missed ones: a machine asleep for days missed hundreds of
 * thousands of 1-second ticks, and stepping stopped at 100,000 (a due time still days old, so another
 * merged tick followed at once) after seconds of a host doing nothing else. `more`: a cron job missed
 * more than `count` ticks (they are counted up to MAX_COUNTED).
 */
export function dueTick(job: JobState, now: Date): { due: Date; count: number; more?: boolean } | undefined {
  if (!job.next || job.next > now) return undefined;
  const t = job.timing;
  if ("at" in t) return { due: job.next, count: 1 };
  if ("every" in t) {
    const interval = parseDuration(t.every);
    const count = Math.floor((now.getTime() - job.next.getTime()) / interval) + 1;
    return { due: new Date(job.next.getTime() + (count - 1) * interval), count };
  }
  const cron = cronOf(t);
  const latest = cron.previousRuns(1, new Date(now.getTime() + 1))[0];
  const due = latest && latest > job.next ? latest : job.next;
  let count = 1;
  for (let at = job.next; count <= MAX_COUNTED; count++) {
    const following = cron.nextRun(at);
    if (!following || following > due) break;
    at = following;
  }
  return count > MAX_COUNTED ? { due, count: MAX_COUNTED, more: true } : { due, count };
}

export function describeTiming(t: JobTiming): string {
  if ("every" in t) return `every ${t.every}`;
  if ("at" in t) return `at ${t.at}`;
  return t.tz ? `cron ${t.cron} (${t.tz})` : `cron ${t.cron}`;
}
