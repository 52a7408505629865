import { relmHomeFrom } from "../../config/config.js";
import { processRuns } from "../../config/process.js";
import { waitFor } from "../../host/poll.js";
import { type JobState, pauseJobs } from "../../host/schedules/schedules.js";
import { wakerRunning } from "../../host/schedules/waker.js";
import { listSessions } from "../../host/states/discovery.js";
import { EXIT } from "../exit-codes.js";
import type { RunIo } from "../run.js";
import { askToStop } from "./actions.js";

/** Rounds of pause, wait and stop before giving up on a tree that keeps starting things. */
const MAX_ROUNDS = 5;
/** The waker looks at the schedules every second, but may be waiting for a host it is starting (20 s at most). */
const WAKER_EXIT_MS = 25_000;
/** A stopped host has closed its kernels already; what is left is its own exit. */
const HOST_EXIT_MS = 10_000;
/** After SIGKILL, only the system's own cleanup is left. */
const KILLED_EXIT_MS = 5_000;

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
  // A session whose host could not be stopped is tried once: later rounds leave it (said once, below).
  const failed = new Set<string>();
  const seen = new Set<string>();
  let settled = false;
  for (let round = 0; round < MAX_ROUNDS && !settled; round++) {
    const now = pauseJobs(home, "relm shutdown");
    paused.push(...now);
    if (!(await waitFor(async () => !(await wakerRunning(home)), WAKER_EXIT_MS, 50))) {
      io.stderr.write(
        `relm: the waker did not exit within ${WAKER_EXIT_MS / 1000} s; run relm shutdown again\n`,
      );
      return EXIT.error;
    }
    // One stopped here is gone (its process was seen to end): not stopped twice. (A listing right after a
    // SIGKILL counted one live while its threads still exited: processRuns now waits for them all.)
    const live = (await listSessions(home)).filter((s) => s.live && !failed.has(s.id) && !stopped.has(s.id));
    for (const s of live) seen.add(s.id);
    const results = await Promise.all(live.map(async (s) => [s.id, await stopHost(home, s, io)] as const));
    for (const [id, ok] of results) (ok ? stopped : failed).add(id);
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
  return failed.size === 0 ? EXIT.done : EXIT.error;
}

/**
 * Stops one live session and says once how: stopped means its process is gone (a host closes its socket
 * a moment before it ends). A host that does not answer on its socket (it removed it, or hangs) gets
 * SIGTERM, which a host takes as `relm stop`; one still running 10 s after either is killed (SIGKILL:
 * its kernels die with it), and its journal continues with `relm run --resume`.
 */
async function stopHost(
  home: string,
  s: { id: string; pid: number; pidStarted?: number },
  io: RunIo,
): Promise<boolean> {
  const asked = await askToStop(home, s.id);
  if (!asked) signal(s.pid, s.pidStarted, "SIGTERM");
  if (await exited(s.pid, s.pidStarted)) {
    const how = asked ? "" : ` (its host did not answer on its socket: sent SIGTERM to pid ${s.pid})`;
    io.stderr.write(`stopped ${s.id}${how}\n`);
    return true;
  }
  signal(s.pid, s.pidStarted, "SIGKILL");
  if (await exited(s.pid, s.pidStarted, KILLED_EXIT_MS)) {
    io.stderr.write(
      `killed ${s.id} (pid ${s.pid}): its host did not exit within ${HOST_EXIT_MS / 1000} s of being ${asked ? "asked to stop" : "sent SIGTERM"}; relm run --resume ${s.id} continues it\n`,
    );
    return true;
  }
  io.stderr.write(`relm: could not stop ${s.id}: pid ${s.pid} still runs after SIGKILL\n`);
  return false;
}

/** Signals the host's process, only while `pid` is still the process that started at `started`. */
function signal(pid: number, started: number | undefined, name: NodeJS.Signals): void {
  if (!processRuns(pid, started)) return;
  try {
    process.kill(pid, name);
  } catch {
    // Gone meanwhile (or not ours): the wait that follows says which.
  }
}

async function exited(pid: number, started: number | undefined, withinMs = HOST_EXIT_MS): Promise<boolean> {
  return waitFor(() => !processRuns(pid, started), withinMs, 20);
}
