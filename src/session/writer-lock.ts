// One writer per journal, checked where a journal is opened for appending. What keeps two hosts of a
// session apart is the host layer's lock, taken before the journal is opened (src/host/server.ts); this
// is the last line behind it, so that a path that forgot to take that lock fails loudly instead of
// writing the same event numbers twice. A lock file beside the journal (O_EXCL) names the writer: its
// pid and, on Linux, the process's start time, so a pid reused after a crash is not taken for the
// writer. A lock whose writer is gone is taken over.
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../config/errors.js";
import { processExists } from "../config/process.js";

export const WRITER_LOCK_FILE = "journal.lock";

/** How long a lock file may stay empty (its writer between creating it and writing its pid). */
const EMPTY_GRACE_MS = 2_000;

/** Another live process is writing this journal. */
export class JournalBusyError extends UserError {
  override readonly name = "JournalBusyError";
}

/** Lock files this process holds: a second open of one journal in one process is refused too. */
const heldHere = new Set<string>();

/** The writer's lock on the journal in `dir`; release() it when the journal is closed. */
export interface WriterLock {
  release(): void;
}

/**
 * Takes the writer lock of the journal in `dir` (session `id`, named in the error) or throws
 * JournalBusyError while a live process holds it.
 */
export function lockJournal(dir: string, id: string): WriterLock {
  const path = join(dir, WRITER_LOCK_FILE);
  const me = identity(process.pid);
  // A few tries: each failed one found a lock whose writer is gone and removed it.
  for (let attempt = 0; attempt < 5; attempt++) {
    if (create(path, me)) {
      heldHere.add(path);
      return {
        release: () => {
          if (!heldHere.delete(path)) return;
          if (read(path) === me) rmSync(path, { force: true });
        },
      };
    }
    const text = read(path);
    if (text === undefined) continue; // released meanwhile
    const writer = liveWriter(path, text);
    if (writer !== undefined) {
      throw new JournalBusyError(
        `${join(dir, "journal.jsonl")} is being written by another relm process (pid ${writer}); a session ` +
          `has one writer at a time: follow it with relm attach ${id}, or stop it with relm stop ${id}`,
      );
    }
    // Removed only if it still names the writer that is gone: another process may have taken it since.
    if (read(path) === text) rmSync(path, { force: true });
  }
  throw new JournalBusyError(
    `${path}: could not take the journal's writer lock (it keeps changing hands); try again`,
  );
}

function create(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The pid of the live process a lock names; undefined when the writer is gone. */
function liveWriter(path: string, text: string): number | undefined {
  if (text === "") return recentlyMade(path) ? 0 : undefined; // its writer is writing its pid, or died first
  const [pidText, started] = text.split(" ");
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  // This process: held by a journal still open here, else left by one that was never closed.
  if (pid === process.pid) return heldHere.has(path) ? pid : undefined;
  if (!processExists(pid)) return undefined;
  // The pid is someone's: the writer's only if it started when the writer did.
  if (started !== undefined && started !== startTime(pid)) return undefined;
  return pid;
}

function recentlyMade(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < EMPTY_GRACE_MS;
  } catch {
    return true;
  }
}

/** `PID` or, where /proc tells it, `PID STARTTIME` (clock ticks since boot: one process's for good). */
function identity(pid: number): string {
  const started = startTime(pid);
  return started === undefined ? String(pid) : `${pid} ${started}`;
}

function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22; counted after the command name, which may hold spaces and ends at the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}
