import { createHash } from "node:crypto";
import { createServer, type Server } from "node:net";
import { isLive } from "../client.js";
import { IdleCollector } from "../idle-gc.js";
import { activeJobs, allJobs, pauseJobs, sessionJobs } from "./schedules.js";

const POLL_MS = 1000;
/** How long after a revival of a session the waker tries it again (one that failed, or whose tick is still due). */
const REVIVE_BACKOFF_MS = 15_000;
/**
 * Revivals that failed in a row (a journal deleted or unreadable, a host that exits as it starts)
 * before the session is given up: such a failure repeats, and was retried every 15 s for good, unheard.
 */
const MAX_REVIVE_FAILURES = 3;

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
 * work (`cannot`: the session's folder or journal is gone) is not retried, and one that failed
 * MAX_REVIVE_FAILURES times in a row is not tried again: the session's jobs are paused, saying why, once
 * in its log and in `relm schedule list` / `relm status`.
 */
export async function runWaker(
  home: string,
  revive: (session: string) => Promise<undefined | { cannot: string; reason: string }>,
  { reviveBackoffMs = REVIVE_BACKOFF_MS }: { reviveBackoffMs?: number } = {},
): Promise<void> {
  const lock = await takeWakerLock(home);
  if (!lock) return;
  const revived = new Map<string, number>();
  const failures = new Map<string, number>();
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
        if ((revived.get(session) ?? 0) > now - reviveBackoffMs) continue;
        // Reviving takes a while: a pause (relm shutdown) may have come meanwhile.
        if (!activeJobs(sessionJobs(home, session)).some((j) => (j.next as Date).getTime() <= now)) continue;
        if (await isLive(home, session)) continue;
        revived.set(session, now);
        let outcome: undefined | { cannot: string; reason: string };
        try {
          outcome = await revive(session);
          failures.delete(session);
        } catch (error) {
          const failed = (failures.get(session) ?? 0) + 1;
          failures.set(session, failed);
          const why = oneLine((error as Error).message);
          process.stderr.write(
            `relm waker: session ${session} could not be revived (${failed} of ${MAX_REVIVE_FAILURES}): ${why}\n`,
          );
          if (failed < MAX_REVIVE_FAILURES) continue;
          failures.delete(session);
          giveUp(
            home,
            session,
            `session ${session} could not be revived ${failed} times in a row`,
            `the waker: ${why}`,
          );
          continue;
        }
        if (outcome) giveUp(home, session, outcome.cannot, `the waker: ${outcome.reason}`);
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

/**
 * An error message on one line, short enough for a pause reason: a host that exited as it started
 * says so on the first line ("…before it was ready:") and why on the last line of its log below it.
 */
function oneLine(message: string): string {
  const lines = message
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const first = lines[0] ?? "";
  const line = first.endsWith(":") && lines.length > 1 ? `${first} ${lines.at(-1)}` : first;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** Pauses the session's jobs so that nothing wakes it again, and says so (the waker's log is its stderr). */
function giveUp(home: string, session: string, why: string, reason: string): void {
  const jobs = pauseJobs(home, reason, (j) => j.session === session);
  process.stderr.write(
    `relm waker: ${why}\nrelm waker: paused ${jobs.length} scheduled job(s) of session ${session}; relm schedule resume ${session} restarts them once that is mended\n`,
  );
}
