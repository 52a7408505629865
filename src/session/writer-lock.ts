// One writer per journal, checked where a journal is opened for appending. What keeps two hosts of a
// session apart is the host layer's lock, taken before the journal is opened (src/host/server.ts); this
// is the last line behind it, so that a path that forgot to take that lock fails loudly instead of
// writing the same event numbers twice. A lock file beside the journal (src/config/pid-lock.ts) names the
// writer, with its start time so that a pid reused after a crash is not taken for the writer; held while
// the journal is open, refused to a second opener in this process too, taken over once its writer is gone.
import { join } from "node:path";
import { UserError } from "../config/errors.js";
import { acquirePidLock, type PidLock } from "../config/pid-lock.js";

export const WRITER_LOCK_FILE = "journal.lock";

/** Another live process is writing this journal. */
export class JournalBusyError extends UserError {
  override readonly name = "JournalBusyError";
}

/** The writer's lock on the journal in `dir`; release() it when the journal is closed. */
export type WriterLock = Pick<PidLock, "release">;

/**
 * Takes the writer lock of the journal in `dir` (session `id`, named in the error) or throws
 * JournalBusyError while a live process holds it.
 */
export function lockJournal(dir: string, id: string): WriterLock {
  return acquirePidLock(join(dir, WRITER_LOCK_FILE), {
    busyError: (writer) =>
      new JournalBusyError(
        `${join(dir, "journal.jsonl")} is being written by another relm process (pid ${writer?.pid ?? "unknown"}); ` +
          `a session has one writer at a time: follow it with relm attach ${id}, or stop it with relm stop ${id}`,
      ),
  });
}
