import { activeJobs, claimTick, describeTiming, dueTick, type JobState, sessionJobs } from "./schedules.js";

/** The longest a timer sleeps before looking again (jobs may be added by other processes meanwhile). */
const MAX_SLEEP_MS = 60_000;
/** After a tick could not be claimed, how long before trying again. */
const RETRY_MS = 1000;

/**
 * Delivers a session's scheduled ticks while its host runs. Each tick is claimed on disk before it is
 * delivered, so a crash can lose a tick but never deliver one twice; ticks missed while no host ran are
 * delivered as one, saying how many it stands for. A tick that comes while a turn runs is read at the
 * next turn boundary.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly home: string,
    private readonly session: string,
    private readonly deliver: (from: string, text: string) => void,
    /**
     * Whether a message from this sender still waits unread (queued, or delivered during a turn that has
     * not reached its boundary): a job's next tick then waits and is merged, so a long turn does not
     * collect one copy of the prompt per interval (a 1-second heartbeat filled the 100-message inbox in
     * a long cell, and the person's own messages were refused).
     */
    private readonly unread: (from: string) => boolean = () => false,
  ) {}

  /** Delivers what is due now and sleeps until the next tick. Call again after any change of jobs. */
  reload(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const now = new Date();
    let retry = false;
    for (const job of this.pending()) retry = !this.fire(job, now) || retry;
    const next = this.nextTickAt();
    if (next === undefined) return;
    const wait = Math.min(MAX_SLEEP_MS, Math.max(retry ? RETRY_MS : 0, next - Date.now()));
    this.timer = setTimeout(() => this.reload(), wait);
  }

  /** When the next tick of any job is due (epoch ms); undefined when none is coming. */
  nextTickAt(): number | undefined {
    return this.pending()
      .map((j) => j.next?.getTime())
      .filter((t): t is number => t !== undefined)
      .sort((a, b) => a - b)[0];
  }

  /** Jobs that still have ticks coming and are not paused. */
  pending(): JobState[] {
    return activeJobs(this.jobs());
  }

  /** Jobs not cancelled, paused ones included. */
  jobs(): JobState[] {
    return sessionJobs(this.home, this.session).filter((j) => !j.cancelled);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** False when a due tick was not delivered now: it could not be claimed, or its last one is unread. */
  private fire(job: JobState, now: Date): boolean {
    const tick = dueTick(job, now);
    if (!tick) return true;
    if (this.unread(`schedule ${job.id}`)) return false; // not claimed: merged into the next look's tick
    try {
      claimTick(this.home, this.session, job.id, tick.due, tick.count);
    } catch {
      return false; // not claimed (the file is locked or unwritable), so not delivered: tried again soon
    }
    const missed = tick.more
      ? ` (over ${(tick.count - 1).toLocaleString("en-US")} earlier ticks came while the session was not running or had not read the last one; this one stands for all of them)`
      : tick.count > 1
        ? ` (${(tick.count - 1).toLocaleString("en-US")} earlier tick${tick.count > 2 ? "s" : ""} came while the session was not running or had not read the last one; this one stands for all ${tick.count.toLocaleString("en-US")})`
        : "";
    try {
      this.deliver(`schedule ${job.id}`, `[${describeTiming(job.timing)}] ${job.prompt}${missed}`);
    } catch {
      // A full inbox refuses the tick: it stays claimed (at most once), and the next one will come.
    }
    return true;
  }
}
