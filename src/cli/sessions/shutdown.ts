import { relmHomeFrom } from "../../config/config.js";
import { processRuns } from "../../config/process.js";
import { waitFor } from "../../host/poll.js";
import { type JobState, pauseJobs } from "../../host/schedules/schedules.js";
import { wakerRunning } from "../../host/schedules/waker.js";
import { listSessions } from "../../host/states/discovery.js";
import { EXIT } from "../exit-codes.js";
import type { RunIo } from "../run.js";
import { stopSession } from "./actions.js";

/** Rounds of pause, wait and stop before giving up on a tree that keeps starting things. */
const MAX_ROUNDS = 5;
/** The waker looks at the schedules every second, but may be waiting for a host it is starting (20 s at most). */
const WAKER_EXIT_MS = 25_000;
/** A stopped host has closed its kernels already; what is left is its own exit. */
const HOST_EXIT_MS = 10_000;

/**
 * `relm shutdown`: afterwards nothing of relm's runs until the person starts something. Schedules are
 * paused first (kept, not cancelled; `relm schedule resume` restarts them), else the waker would revive
 * every scheduled session as soon as its host stopped; then the waker is let go (with nothing active
 * it exits) and every live host is stopped. Repeated until a round finds nothing: a host stopping now
 * may have added a job, or the waker may have been starting a host as the jobs were paused.
 */
export async function shutdownAction(io: RunIo): Promise<number> {
  const home = relmHomeFrom(io.env);
  const paused: JobState[] = [];
  const stopped = new Set<string>();
  let failed = 0;
  const seen = new Set<string>();
  let settled = false;
  for (let round = 0; round < MAX_ROUNDS && !settled; round++) {
    const now = pauseJobs(home, "relm shutdown");
    paused.push(...now);
    if (!(await wakerGone(home))) {
      io.stderr.write(
        `relm: the waker did not exit within ${WAKER_EXIT_MS / 1000} s; run relm shutdown again\n`,
      );
      return EXIT.error;
    }
    const live = (await listSessions(home)).filter((s) => s.live);
    for (const s of live) seen.add(s.id);
    const results = await Promise.all(
      // Stopped means gone: the host closes its socket a moment before its process ends.
      live.map(
        async (s) =>
          [s.id, (await stopSession(home, s.id, io)) && (await exited(s.pid, s.pidStarted))] as const,
      ),
    );
    for (const [id, ok] of results) {
      if (ok) stopped.add(id);
      else failed++;
    }
    settled = now.length === 0 && live.length === 0;
  }
  io.stdout.write(`stopped ${stopped.size} of ${seen.size} live sessions\n`);
  if (paused.length > 0) {
    const sessions = new Set(paused.map((j) => j.session)).size;
    io.stdout.write(
      `paused ${paused.length} scheduled job(s) of ${sessions} session(s); relm schedule resume restarts them\n`,
    );
  }
  if (!settled) {
    io.stderr.write(`relm: sessions kept starting after ${MAX_ROUNDS} rounds; relm status shows what runs\n`);
    return EXIT.error;
  }
  return failed === 0 ? EXIT.done : EXIT.error;
}

async function exited(pid: number, started: number | undefined): Promise<boolean> {
  return waitFor(() => !processRuns(pid, started), HOST_EXIT_MS, 20);
}

async function wakerGone(home: string): Promise<boolean> {
  return waitFor(async () => !(await wakerRunning(home)), WAKER_EXIT_MS, 50);
}
