import { closeSync, fstatSync, openSync } from "node:fs";
import { recordDamage } from "./damage.js";
import { JournalFormatError } from "./errors.js";
import { type EventScan, scanEvents, scanHeader, TAIL_BYTES } from "./scan.js";
import type { JournalHeader } from "./types.js";

/** The header, and the events as scanEvents read them: a half-written last line skipped, and where it began. */
type ReadJournalResult = EventScan & { header: JournalHeader };

interface JournalTail extends ReadJournalResult {
  /** `n` of the last complete event; 0 when there is none. */
  lastN: number;
  /** Size of the file in bytes when it was read. */
  size: number;
}

function withFile<T>(path: string, read: (fd: number, size: number) => T): T {
  const fd = openSync(path, "r");
  try {
    return read(fd, fstatSync(fd).size);
  } catch (error) {
    // Whoever reads a damaged journal first leaves a note for listings (relm agents marks the session).
    if (error instanceof JournalFormatError) recordDamage(error);
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** The journal's first line alone: a session's title, folder and start, even when later lines are damaged. */
export function readJournalHeader(path: string): JournalHeader {
  return withFile(path, (fd, size) => scanHeader(fd, size, path).header);
}

/** The whole journal. Throws JournalFormatError for a damaged line other than the last, or a foreign version. */
export function readJournal(path: string): ReadJournalResult {
  return withFile(path, (fd, size) => {
    const { header, end } = scanHeader(fd, size, path);
    return { header, ...scanEvents(fd, size, end, path) };
  });
}

/**
 * The header and the events in roughly the last `bytes` of the file (more if one line is longer), without
 * reading the middle: enough to list a session's title, state and spend.
 */
export function readHeaderAndTail(path: string, bytes = TAIL_BYTES): JournalTail {
  return withFile(path, (fd, size) => {
    const { header, end } = scanHeader(fd, size, path);
    const scan = scanEvents(fd, size, end, path, Math.max(1, bytes));
    return { header, ...scan, lastN: scan.events.at(-1)?.n ?? 0, size };
  });
}
