import { createHash } from "node:crypto";
import { createServer, type Server } from "node:net";
import { isLive } from "../client.js";
import { IdleCollector } from "../idle-gc.js";
import { activeJobs, allJobs, pauseJobs, sessionJobs } from "./schedules.js";

const POLL_MS = 1000;
const REVIVE_BACKOFF_MS = 15_000;

function lockName(home: string): string {
  return `\0relm-waker-${createHash("sha256").update(home).digest("hex").slice(0, 16)}`;
}

/** Holds the per-user waker lock (an abstract socket: released by the kernel when the process ends). */
async function takeWakerLock(home: string): Promise<Server | undefined> {
  if (process.platform !== "linux") return createServer();
  const lock = createServer((s) => s.destroy());
  return new Promise((resolve) => {
    lock.once("error", () => resolve(undefined));
    lock.listen(lockName(home), () => resolve(lock));
  });
}

/** True when a waker already runs for this RELM_HOME. */
export async function wakerRunning(home: string): Promise<boolean> {
  const lock = await takeWakerLock(home);
  if (!lock) return true;
  await new Promise<void>((r) => lock.close(() => r()));
  return false;
}

/**
 * The per-user waker: a small process that exists only while some schedule has ticks to come. It never
 * delivers a tick itself; when a session with a due tick has no live host, it revives the host, which
 * claims and delivers the tick. It exits when no job is left that is not paused. A revival that can never
 * work (`folderGone`: the session's folder was moved or deleted) is not retried: the session's jobs are paused, saying
 * why, once in its log and in `relm schedule list` / `relm status`.
 */
export async function runWaker(
  home: string,
  revive: (session: string) => Promise<undefined | { folderGone: string }>,
): Promise<void> {
  const lock = await takeWakerLock(home);
  if (!lock) return;
  const revived = new Map<string, number>();
  // Between looks it only sleeps, for hours: its garbage is collected in full now and then (idle-gc.ts).
  const collector = new IdleCollector();
  try {
    for (;;) {
      // Paused jobs (relm shutdown, relm schedule pause) wake nothing: with only those left it exits.
      const jobs = activeJobs(allJobs(home));
      if (jobs.length === 0) return;
      const now = Date.now();
      const due = new Set(jobs.filter((j) => (j.next as Date).getTime() <= now).map((j) => j.session));
      for (const session of due) {
        if ((revived.get(session) ?? 0) > now - REVIVE_BACKOFF_MS) continue;
        // Reviving takes a while: a pause (relm shutdown) may have come meanwhile.
        if (!activeJobs(sessionJobs(home, session)).some((j) => (j.next as Date).getTime() <= now)) continue;
        if (await isLive(home, session)) continue;
        revived.set(session, now);
        const outcome = await revive(session).catch(() => undefined);
        if (outcome) giveUp(home, session, outcome.folderGone);
      }
      collector.idle();
      const next = Math.min(...jobs.map((j) => (j.next as Date).getTime()));
      await new Promise((r) => setTimeout(r, Math.max(50, Math.min(POLL_MS, next - Date.now()))));
    }
  } finally {
    collector.stop();
    lock.close();
  }
}

/** Pauses the session's jobs so that nothing wakes it again, and says so (the waker's log is its stderr). */
function giveUp(home: string, session: string, why: string): void {
  const jobs = pauseJobs(home, "the waker: its folder no longer exists", (j) => j.session === session);
  process.stderr.write(
    `relm waker: ${why}\nrelm waker: paused ${jobs.length} scheduled job(s) of session ${session}; relm schedule resume ${session} restarts them once its folder is back\n`,
  );
}
