// Whether a process still runs, for the files that name one by pid (locks, session states, fork-server
// sockets). A zombie counts as gone: it has exited and only waits for its parent to reap it, which under a
// PID 1 that never reaps can be forever.
import { readFileSync } from "node:fs";

/** Whether `pid` runs (it may belong to someone else: EPERM still means it exists). */
export function processExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return process.platform !== "linux"; // no /proc: kill(0) is all there is to go on
  }
}

/**
 * When `pid` started, in clock ticks since boot (field 22 of /proc/PID/stat): one process's for good, so
 * a file that names a pid and this can tell its process from a later one given the same pid. Undefined
 * where there is no /proc, or no such process.
 */
export function processStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Counted after the command name, which may hold spaces and ends at the last ")".
    const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    return Number.isInteger(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}
