// Whether a process still runs, for the files that name one by pid (locks, session states, fork-server
// sockets). A zombie counts as gone: it has exited and only waits for its parent to reap it, which under a
// PID 1 that never reaps can be forever. But /proc/PID/stat is the main thread's: killed, a multithreaded
// process (every Node one) shows "Z" as soon as that thread is done, while its other threads still exit
// and hold its descriptors (a host's lock socket still accepted connections: a listing right after
// `relm shutdown` killed one counted it live). Gone is a zombie with no thread left but the main one.
import { readFileSync } from "node:fs";

/** The fields of /proc/PID/stat from the third on (field N is [N - 3]); undefined without one. */
export function statFields(pid: number | "self"): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: it ends at the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** Whether `pid` runs (it may belong to someone else: EPERM still means it exists). */
export function processExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const fields = statFields(pid);
  if (!fields) return process.platform !== "linux"; // no /proc: kill(0) is all there is to go on
  return !exited(fields);
}

/**
 * Whether the process `pid` that started at `started` (processStartTime, as recorded with the pid) still
 * runs: a process with that pid but another start time is a later one the system gave the same pid, so
 * the recorded one is gone. Without `started` (older files, no /proc) it is processExists().
 */
export function processRuns(pid: number, started: number | undefined): boolean {
  if (started === undefined || process.platform !== "linux") return processExists(pid);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  // One read of /proc/PID/stat answers both (listings ask this of every session; shutdown polls it).
  const fields = statFields(pid);
  return fields !== undefined && !exited(fields) && Number(fields[22 - 3]) === started;
}

/** A zombie whose threads have all ended (field 20 counts them; the main thread's stays until reaped). */
function exited(fields: string[]): boolean {
  return fields[0] === "Z" && Number(fields[20 - 3]) <= 1;
}

let ownStart: number | undefined | null = null;

/** processStartTime(pid), remembered for this process's own pid (written with every session state). */
export function startTimeOf(pid: number): number | undefined {
  if (pid !== process.pid) return processStartTime(pid);
  if (ownStart === null) ownStart = processStartTime(pid);
  return ownStart;
}

/**
 * When `pid` started, in clock ticks since boot (field 22 of /proc/PID/stat): one process's for good, so
 * a file that names a pid and this can tell its process from a later one given the same pid. Undefined
 * where there is no /proc, or no such process.
 */
export function processStartTime(pid: number): number | undefined {
  const ticks = Number(statFields(pid)?.[22 - 3]);
  return Number.isInteger(ticks) ? ticks : undefined;
}
