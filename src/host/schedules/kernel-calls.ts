import type { TreeOptions } from "../../agent/core/tree.js";
import type { Scheduler } from "./scheduler.js";
import { addJob, cancelJob, describeTiming } from "./schedules.js";

// The scheduling functions a session's kernels call, served by its host.

/** schedule(...), schedules() and unschedule(...) from Python, on this host's jobs. */
type KernelScheduler = NonNullable<TreeOptions["scheduler"]>;

export function kernelScheduler(home: string, session: string, scheduler: Scheduler): KernelScheduler {
  return {
    add: (timing, prompt, say) => {
      const job = addJob(home, session, timing, prompt, say);
      scheduler.reload();
      return { id: job.id, timing: describeTiming(job.timing) };
    },
    list: () =>
      scheduler
        .jobs()
        .filter((j) => j.next !== undefined)
        .map((j) => ({
          id: j.id,
          timing: describeTiming(j.timing),
          prompt: j.prompt,
          next: j.next?.toISOString(),
          ...(j.paused ? { paused: j.paused } : {}),
        })),
    cancel: (id) => {
      cancelJob(home, id);
      scheduler.reload();
    },
  };
}
