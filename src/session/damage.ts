// A journal damaged in the middle (a line that is not what relm wrote, followed by more lines): found by
// reading it whole, remembered beside it so a listing of sessions can mark it without reading every
// journal, and recovered by cutting the journal just before the damage, keeping a copy of the original.
// A torn last line is not damage: it is what a crash mid-write leaves, and Journal.open cuts it itself.

import {
  appendFileSync,
  closeSync,
  constants,
  copyFileSync,
  fstatSync,
  openSync,
  readFileSync,
  statSync,
  truncateSync,
  unlinkSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { writeNoFollow } from "../kernel/sandbox/no-follow.js";
import { JournalFormatError } from "./errors.js";
import { ensurePrivateDir } from "./paths.js";
import { forEachLineEnd, scanEvents, scanHeader } from "./scan.js";

/** Beside journal.jsonl: what a reader found wrong with it, valid while the journal is unchanged. */
export const DAMAGE_FILE = "journal-damage.json";

/** In $RELM_HOME/index/: ids of sessions whose journal a reader found damaged (one a line, may repeat). */
export const DAMAGED_INDEX = "damaged.log";

/** The ids index/damaged.log names (candidates only: readDamage says whether each still is). */
export function damagedIds(home: string): Set<string> {
  try {
    return new Set(
      readFileSync(join(home, "index", DAMAGED_INDEX), "utf8")
        .split("\n")
        .filter(Boolean),
    );
  } catch {
    return new Set();
  }
}

interface JournalDamage {
  /** 1-based line of the first damaged line (undefined when only a tail was read). */
  line?: number;
  /** Byte offset where that line starts: everything before it is intact. */
  offset?: number;
  reason: string;
  /** The journal's size and modification time when the damage was found: a changed file is re-read. */
  size: number;
  mtimeMs: number;
}

type JournalHealth =
  | { kind: "ok"; events: number }
  | { kind: "torn"; events: number }
  | {
      kind: "damaged";
      error: JournalFormatError;
      /** Events before the damaged line: what a cut keeps. */
      eventsBefore: number;
      /** Lines from the damaged one to the end: what a cut drops (kept in the copy). */
      linesFrom: number;
    }
  | { kind: "foreign"; error: JournalFormatError };

/** Reads the whole journal at `path` and says whether relm can trust it, and if not, where it breaks. */
export function checkJournal(path: string): JournalHealth {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    try {
      const head = scanHeader(fd, size, path);
      const scan = scanEvents(fd, size, head.end, path);
      return { kind: scan.truncatedTail ? "torn" : "ok", events: scan.events.length };
    } catch (error) {
      if (!(error instanceof JournalFormatError)) throw error;
      if (error.kind === "version") return { kind: "foreign", error };
      const offset = error.offset ?? 0;
      // Lines before the damaged one, less the header: the events a cut keeps.
      const before = Math.max(0, countLines(fd, 0, offset) - 1);
      return { kind: "damaged", error, eventsBefore: before, linesFrom: countLines(fd, offset, size) };
    }
  } finally {
    closeSync(fd);
  }
}

/** Lines in the bytes [from, to) of the file, a last one without a newline included. */
function countLines(fd: number, from: number, to: number): number {
  let lines = 0;
  let lastEnd = from;
  const end = forEachLineEnd(fd, from, to, (at) => {
    lines++;
    lastEnd = at;
  });
  return lastEnd === end ? lines : lines + 1;
}

/**
 * Remembers, beside the journal, that a reader found it damaged, so `relm agents` can mark the session
 * without reading whole journals. Best effort: a read-only RELM_HOME just goes unmarked.
 */
export function recordDamage(error: JournalFormatError): void {
  if (error.kind !== "damaged") return;
  try {
    const st = statSync(error.file);
    const damage: JournalDamage = {
      line: error.line,
      offset: error.offset,
      reason: error.reason,
      size: st.size,
      mtimeMs: st.mtimeMs,
    };
    const dir = dirname(error.file);
    // A sub-agent's folder is writable by the session's (sandboxed) kernels: not through a link there.
    writeNoFollow(join(dir, DAMAGE_FILE), `${JSON.stringify(damage)}\n`, 0o600);
    // A session's own journal (sessions/ID/journal.jsonl) is also named in $RELM_HOME/index/damaged.log,
    // so a listing learns which sessions to look at from one file instead of a stat per session.
    const sessions = dirname(dir);
    if (basename(sessions) === "sessions") {
      const index = join(dirname(sessions), "index");
      ensurePrivateDir(index);
      appendFileSync(join(index, DAMAGED_INDEX), `${basename(dir)}\n`, { mode: 0o600 });
    }
  } catch {
    // Marking is a courtesy to later listings; the error itself is still reported.
  }
}

/** The damage recorded for the journal in `dir`, while the journal is still as it was then. */
export function readDamage(dir: string): JournalDamage | undefined {
  const file = join(dir, DAMAGE_FILE);
  // Called for every session of a listing: the usual absence costs one stat, and no exception.
  if (!statSync(file, { throwIfNoEntry: false })) return undefined;
  let damage: JournalDamage;
  try {
    damage = JSON.parse(readFileSync(file, "utf8")) as JournalDamage;
  } catch {
    return undefined;
  }
  try {
    const st = statSync(join(dir, "journal.jsonl"));
    if (st.size === damage.size && st.mtimeMs === damage.mtimeMs) return damage;
  } catch {
    // the journal is gone: so is what was wrong with it
  }
  return undefined;
}

/**
 * Recovers a journal damaged in the middle: the original is kept as `journal.jsonl.damaged-TIME` (0600)
 * and the journal is cut just before the first damaged line, so it reads as if the session had
 * stopped there (a resume continues from the last intact event). Returns the copy's path.
 */
export function cutAtDamage(dir: string, offset: number, now = new Date()): string {
  const path = join(dir, "journal.jsonl");
  const backup = `${path}.damaged-${now.toISOString().replace(/[:.]/g, "-")}`;
  copyFileSync(path, backup, constants.COPYFILE_EXCL);
  truncateSync(path, offset);
  try {
    unlinkSync(join(dir, DAMAGE_FILE));
  } catch {
    // none recorded
  }
  return backup;
}
