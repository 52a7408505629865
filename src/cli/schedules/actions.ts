import { relmHomeFrom } from "../../config/config.js";
import { UsageError } from "../../config/errors.js";
import { homeToRead } from "../../config/home-check.js";
import { SessionClient } from "../../host/client.js";
import {
  activeJobs,
  addJob,
  allJobs,
  cancelJob,
  describeTiming,
  type JobState,
  type JobTiming,
  pauseJobs,
  resumeJobs,
  sessionJobs,
} from "../../host/schedules/schedules.js";
import { runWaker } from "../../host/schedules/waker.js";
import { CannotReviveError, ensureWaker, reviveHost } from "../../host/spawn.js";
import { resolveSessionId, sessionsDir } from "../../session/index.js";
import { EXIT } from "../exit-codes.js";
import type { RunIo } from "../run.js";

/** Tells a live host its jobs changed; a session without one is the waker's to revive. */
async function reload(home: string, session: string): Promise<void> {
  const client = await SessionClient.connect(home, session);
  if (!client) return;
  await client.call("schedule.reload").catch(() => undefined);
  client.close();
}

export async function addAction(
  io: RunIo,
  prefix: string,
  prompt: string,
  flags: { every?: string; at?: string; cron?: string },
): Promise<number> {
  const home = relmHomeFrom(io.env);
  const id = resolveSessionId(sessionsDir(home), prefix);
  const given = (["every", "at", "cron"] as const).filter((k) => flags[k] !== undefined);
  if (given.length !== 1) throw new UsageError("give exactly one of --every, --at, --cron");
  const key = given[0] as "every" | "at" | "cron";
  const job = addJob(home, id, { [key]: flags[key] } as JobTiming, prompt);
  await reload(home, id);
  await ensureWaker(home, io.env);
  const next = sessionJobs(home, id).find((j) => j.id === job.id)?.next;
  io.stdout.write(`${job.id}\n`);
  io.stderr.write(
    `scheduled ${describeTiming(job.timing)} for session ${id}; next tick ${next?.toISOString() ?? "-"}\n`,
  );
  // A new job runs; the ones relm shutdown paused stay paused, and the person should know.
  const jobs = allJobs(home).filter((j) => !j.cancelled && j.next);
  sayPaused(io.stderr, jobs);
  return EXIT.done;
}

export async function listAction(
  io: RunIo,
  prefix: string | undefined,
  flags: { json?: boolean },
): Promise<number> {
  const home = homeToRead(relmHomeFrom(io.env));
  const id = prefix ? resolveSessionId(sessionsDir(home), prefix) : undefined;
  const jobs = (id ? sessionJobs(home, id) : allJobs(home)).filter((j) => !j.cancelled && j.next);
  for (const j of jobs) {
    if (flags.json) io.stdout.write(`${JSON.stringify({ ...j, next: j.next?.toISOString() })}\n`);
    else {
      const when = j.paused
        ? `paused since ${j.paused.since} (${j.paused.reason})`
        : `next ${j.next?.toISOString()}`;
      io.stdout.write(`${j.id}  ${j.session}  ${describeTiming(j.timing).padEnd(22)} ${when}  ${j.prompt}\n`);
    }
  }
  if (flags.json) return EXIT.done;
  if (jobs.length === 0) io.stdout.write("no scheduled jobs\n");
  sayPaused(io.stdout, jobs);
  return EXIT.done;
}

export async function cancelAction(io: RunIo, job: string): Promise<number> {
  const home = relmHomeFrom(io.env);
  const cancelled = cancelJob(home, job);
  await reload(home, cancelled.session);
  io.stderr.write(
    `cancelled ${job} (${describeTiming(cancelled.timing)} for session ${cancelled.session})\n`,
  );
  return EXIT.done;
}

/** The jobs a `pause`/`resume` argument names: a job id, else a session id or prefix; all without one. */
function selector(home: string, target: string | undefined): (job: JobState) => boolean {
  if (target === undefined) return () => true;
  if (allJobs(home).some((j) => j.id === target && !j.cancelled)) return (j) => j.id === target;
  const session = resolveSessionId(sessionsDir(home), target);
  return (j) => j.session === session;
}

/** Tells each live host among `jobs`' sessions that its jobs changed. */
async function reloadAll(home: string, jobs: JobState[]): Promise<void> {
  await Promise.all([...new Set(jobs.map((j) => j.session))].map((s) => reload(home, s)));
}

export async function pauseAction(io: RunIo, target: string | undefined): Promise<number> {
  const home = relmHomeFrom(io.env);
  const paused = pauseJobs(home, "relm schedule pause", selector(home, target));
  // Live hosts drop their timers; the waker exits by itself once no job is active.
  await reloadAll(home, paused);
  io.stderr.write(
    paused.length === 0
      ? "no active scheduled jobs to pause\n"
      : `paused ${paused.length} job(s): ${paused.map((j) => j.id).join(", ")}; relm schedule resume restarts them\n`,
  );
  return EXIT.done;
}

export async function resumeAction(io: RunIo, target: string | undefined): Promise<number> {
  const home = relmHomeFrom(io.env);
  const resumed = resumeJobs(home, selector(home, target));
  await reloadAll(home, resumed);
  if (activeJobs(allJobs(home)).length > 0) await ensureWaker(home, io.env);
  if (resumed.length === 0) {
    io.stderr.write("no paused scheduled jobs\n");
    return EXIT.done;
  }
  for (const j of resumed) {
    io.stderr.write(
      `resumed ${j.id} (${describeTiming(j.timing)} for session ${j.session}); next tick ${j.next?.toISOString() ?? "-"}\n`,
    );
  }
  io.stderr.write(
    "ticks that fell due while they were paused are not delivered (an --at time that passed fires now)\n",
  );
  return EXIT.done;
}

/** Writes one line on the paused jobs among `jobs` (and how to resume them) to `out`, when any is. */
export function sayPaused(out: NodeJS.WritableStream, jobs: JobState[]): void {
  const paused = jobs.filter((j) => j.paused);
  if (paused.length === 0) return;
  const reasons = [...new Set(paused.map((j) => j.paused?.reason))].join(", ");
  const since = paused.map((j) => j.paused?.since ?? "").sort()[0];
  out.write(
    `${paused.length} scheduled job(s) paused (${reasons}, since ${since}): they deliver nothing and wake ` +
      "no session; relm schedule resume [JOB|SESSION] restarts them\n",
  );
}

export async function wakerAction(io: RunIo): Promise<number> {
  const home = relmHomeFrom(io.env);
  await runWaker(home, async (session) => {
    try {
      await reviveHost(home, session, io.env);
      return undefined;
    } catch (error) {
      // Nothing a retry can mend: the waker gives the session up (its jobs paused, said in its log).
      if (error instanceof CannotReviveError) return { cannot: error.message, reason: error.reason };
      throw error;
    }
  });
  return EXIT.done;
}
