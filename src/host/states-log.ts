// $RELM_HOME/index/states.jsonl: every session summary written (state.ts's writeState) is also appended here, so
// `relm agents` reads one file for a thousand sessions instead of two or three files each (a stat costs
// ~0.2 ms on a loaded machine; per-session syscalls were most of a listing's time). state.json stays the
// session's own record; this log is an index the listing reconciles with one readdir of sessions/ (a
// session missing from it is described the old way and appended). It sits outside sessions/, which holds
// only session folders. Appends and compaction hold the same
// short lock, so no append can land in a file that a compaction is replacing.
import {
  appendFileSync,
  closeSync,
  fstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir } from "../session/paths.js";
import { withFileLock } from "./file-lock.js";
import type { SessionState } from "./state.js";

export const STATES_LOG = "states.jsonl";

/** `$RELM_HOME/index`: indexes over all sessions (this log; session/damage.ts's damaged.log). */
export function indexDir(home: string): string {
  return join(home, "index");
}
const LOCK = "states.lock";
/** A writer compacts past this size even when nobody lists (a listing compacts much earlier). */
const HARD_CAP = 8 * 1024 * 1024;
/** The lock is held for an append: waiting longer means something is wrong; the log is then dropped. */
const LOCK_WAIT_MS = 2000;

/** A line of the log: a summary, or a session whose summary must be rebuilt (`forget`). */
type Entry = SessionState | { id: string; forget: true };

function append(home: string, entry: Entry): void {
  const dir = indexDir(home);
  const path = join(dir, STATES_LOG);
  try {
    ensurePrivateDir(dir);
    withFileLock(
      join(dir, LOCK),
      () => {
        const fd = openSync(path, "a", 0o600);
        let size: number;
        try {
          writeSync(fd, `${JSON.stringify(entry)}\n`);
          size = fstatSync(fd).size;
        } finally {
          closeSync(fd);
        }
        if (size > HARD_CAP) compactLocked(dir, readLog(home).states);
      },
      LOCK_WAIT_MS,
    );
  } catch {
    // A log that missed a write would list a stale summary: drop it, and the next listing rebuilds it
    // from the state files.
    rmSync(path, { force: true });
  }
}

/** Called by writeState after state.json is written. */
export function logState(home: string, state: SessionState): void {
  append(home, state);
}

/** The next listing describes this session from its files again (its journal was cut, say). */
export function forgetState(home: string, id: string): void {
  append(home, { id, forget: true });
}

export interface StatesLog {
  /** The last summary of each session the log names. */
  states: Map<string, SessionState>;
  /** Lines read: far more than states.size means the log is worth compacting. */
  lines: number;
}

export function readLog(home: string): StatesLog {
  const dir = indexDir(home);
  const states = new Map<string, SessionState>();
  let text: string;
  try {
    text = readFileSync(join(dir, STATES_LOG), "utf8");
  } catch {
    return { states, lines: 0 };
  }
  const { entries, lines } = parseLog(text);
  for (const entry of entries) {
    if (typeof entry?.id !== "string") continue;
    if ("forget" in entry) states.delete(entry.id);
    else states.set(entry.id, entry);
  }
  return { states, lines };
}

/**
 * The log's entries: parsed as one JSON array (one call and no array of lines, instead of a thousand
 * calls), or line by line when that fails, skipping a torn line (its session is then described from its
 * files).
 */
function parseLog(text: string): { entries: (Entry | undefined)[]; lines: number } {
  const body = text.trimEnd();
  if (!body) return { entries: [], lines: 0 };
  try {
    const entries = JSON.parse(`[${body.replaceAll("\n", ",")}]`) as Entry[];
    return { entries, lines: entries.length };
  } catch {
    const lines = body.split("\n").filter(Boolean);
    const entries = lines.map((line) => {
      try {
        return JSON.parse(line) as Entry;
      } catch {
        return undefined;
      }
    });
    return { entries, lines: lines.length };
  }
}

/** Appends summaries the listing built from the sessions' own files (sessions missing from the log). */
export function logStates(home: string, states: SessionState[]): void {
  if (states.length === 0) return;
  const dir = indexDir(home);
  const path = join(dir, STATES_LOG);
  try {
    ensurePrivateDir(dir);
    withFileLock(
      join(dir, LOCK),
      () => appendFileSync(path, states.map((s) => `${JSON.stringify(s)}\n`).join(""), { mode: 0o600 }),
      LOCK_WAIT_MS,
    );
  } catch {
    // A read-only RELM_HOME, or a busy lock: the next listing describes them again.
  }
}

/** Rewrites the log as one line per session (those `keep` names), when it has grown well past that. */
export function compactIfWorthIt(home: string, log: StatesLog, keep: Set<string>): void {
  if (log.lines <= 2 * keep.size + 200) return;
  const dir = indexDir(home);
  try {
    withFileLock(
      join(dir, LOCK),
      () => {
        // Read again under the lock: a host may have appended since the listing read it.
        const fresh = readLog(home).states;
        for (const id of fresh.keys()) if (!keep.has(id)) fresh.delete(id);
        compactLocked(dir, fresh);
      },
      LOCK_WAIT_MS,
    );
  } catch {
    // Compaction is an optimisation: the log still reads correctly uncompacted.
  }
}

function compactLocked(dir: string, states: Map<string, SessionState>): void {
  const path = join(dir, STATES_LOG);
  const tmp = `${path}.${process.pid}.tmp`;
  const text = [...states.values()].map((s) => `${JSON.stringify(s)}\n`).join("");
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}
