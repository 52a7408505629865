import { relmHomeFrom } from "../config/config.js";
import { UsageError } from "../config/errors.js";
import { SessionClient } from "../host/client.js";
import {
  addJob,
  allJobs,
  cancelJob,
  describeTiming,
  type JobTiming,
  sessionJobs,
} from "../host/schedules.js";
import { runWaker } from "../host/waker.js";
import { resolveSessionId, sessionsDir } from "../session/index.js";
import { EXIT } from "./exit-codes.js";
import type { RunIo } from "./run.js";
import { ensureWaker, reviveHost } from "./spawn-host.js";

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
  return EXIT.done;
}

export async function listAction(
  io: RunIo,
  prefix: string | undefined,
  flags: { json?: boolean },
): Promise<number> {
  const home = relmHomeFrom(io.env);
  const id = prefix ? resolveSessionId(sessionsDir(home), prefix) : undefined;
  const jobs = (id ? sessionJobs(home, id) : allJobs(home)).filter((j) => !j.cancelled && j.next);
  for (const j of jobs) {
    if (flags.json) io.stdout.write(`${JSON.stringify({ ...j, next: j.next?.toISOString() })}\n`);
    else
      io.stdout.write(
        `${j.id}  ${j.session}  ${describeTiming(j.timing).padEnd(22)} next ${j.next?.toISOString()}  ${j.prompt}\n`,
      );
  }
  if (jobs.length === 0 && !flags.json) io.stdout.write("no scheduled jobs\n");
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

export async function wakerAction(io: RunIo): Promise<number> {
  const home = relmHomeFrom(io.env);
  await runWaker(home, (session) => reviveHost(home, session, io.env));
  return EXIT.done;
}
