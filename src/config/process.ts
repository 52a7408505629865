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
