// $RELM_HOME/index/states.jsonl: every session summary written (state.ts's writeState) is also appended here, so
// `relm agents` reads one file for a thousand sessions instead of two or three files each (a stat costs
// ~0.2 ms on a loaded machine; per-session syscalls were most of a listing's time). state.json stays the
// session's own record; this log is an index the listing reconciles with one readdir of sessions/ (a
// session missing from it is described the old way and appended). It sits outside sessions/, which holds
// only session folders. Appends and compaction hold the same
// short lock, so no append can land in a file that a compaction is replacing.
import { closeSync, fstatSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { writePrivateFile } from "../../config/private-file.js";
import { ensurePrivateDir } from "../../session/paths.js";
import { withFileLock } from "../file-lock.js";
import { type SessionState, unhostedState } from "./types.js";

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

/** Appends entries under the log's lock, compacting past the hard cap; throws when it cannot. */
function appendLocked(home: string, entries: Entry[]): void {
  const dir = indexDir(home);
  ensurePrivateDir(dir);
  withFileLock(
    join(dir, LOCK),
    () => {
      const fd = openSync(join(dir, STATES_LOG), "a", 0o600);
      let size: number;
      try {
        writeSync(fd, entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
        size = fstatSync(fd).size;
      } finally {
        closeSync(fd);
      }
      if (size > HARD_CAP) compactLocked(dir, readLog(home).states);
    },
    LOCK_WAIT_MS,
  );
}

/** Appends one entry (writeState's summary after state.json is written, or a `forget`). */
export function logState(home: string, entry: Entry): void {
  try {
    appendLocked(home, [entry]);
  } catch {
    // A log that missed a write would list a stale summary: drop it, and the next listing rebuilds it
    // from the state files.
    rmSync(join(indexDir(home), STATES_LOG), { force: true });
  }
}

/** The next listing describes this session from its files again (its journal was cut, say). */
export function forgetState(home: string, id: string): void {
  logState(home, { id, forget: true });
}

/**
 * A session's last summary in the log: the fields a listing sorts and filters by, read straight from the
 * line; the rest parsed only for a session that is shown (a listing of 1,000 shows 20).
 */
class LoggedState {
  private parsed: SessionState | undefined;

  constructor(
    readonly id: string,
    readonly created: string,
    readonly status: string,
    readonly pid: number,
    readonly pidStarted: number | undefined,
    /** The summary as written: one JSON object. */
    readonly line: string,
  ) {}

  get state(): SessionState {
    this.parsed ??= this.parse();
    return this.parsed;
  }

  /** The whole summary; a line that no longer parses (two writes run together) is listed by what it said. */
  private parse(): SessionState {
    try {
      return JSON.parse(this.line) as SessionState;
    } catch {
      const { id, created, status, pid, pidStarted } = this;
      const header = { title: "(summary unreadable: relm doctor)", cwd: "", created };
      return { ...unhostedState(id, header, status as SessionState["status"]), pid, pidStarted };
    }
  }
}

interface StatesLog {
  /** The last summary of each session the log names. */
  states: Map<string, LoggedState>;
  /** Lines read: far more than states.size means the log is worth compacting. */
  lines: number;
}

export function readLog(home: string): StatesLog {
  const dir = indexDir(home);
  const states = new Map<string, LoggedState>();
  let text: string;
  try {
    text = readFileSync(join(dir, STATES_LOG), "utf8");
  } catch {
    return { states, lines: 0 };
  }
  let lines = 0;
  for (const line of text.split("\n")) {
    if (!line) continue;
    lines++;
    const entry = entryOf(line);
    if (!entry) continue; // a torn line: the session is described from its files
    if ("forget" in entry) states.delete(entry.forget);
    else states.set(entry.id, entry);
  }
  return { states, lines };
}

/**
 * One line of the log. Summaries are flat objects that JSON.stringify wrote, so a key in quotes followed
 * by a colon occurs only as a key (inside a string every quote is escaped), and the values read here
 * (an id, an ISO time, a status word, a pid) hold no escapes. A line in any other shape is parsed whole.
 */
function entryOf(line: string): LoggedState | { forget: string } | undefined {
  if (!line.endsWith("}")) return undefined;
  const id = idOf(line);
  if (id !== undefined && line.endsWith(',"forget":true}')) return { forget: id };
  const created = stringField(line, "created");
  const status = stringField(line, "status");
  const pid = Number(numberField(line, "pid"));
  const started = numberField(line, "pidStarted");
  if (id !== undefined && created !== undefined && status !== undefined && Number.isInteger(pid))
    return new LoggedState(
      id,
      created,
      status,
      pid,
      started === undefined ? undefined : Number(started),
      line,
    );
  let parsed: Entry;
  try {
    parsed = JSON.parse(line) as Entry;
  } catch {
    return undefined;
  }
  if (typeof parsed?.id !== "string") return undefined;
  if ("forget" in parsed) return { forget: parsed.id };
  return new LoggedState(
    parsed.id,
    String(parsed.created),
    String(parsed.status),
    parsed.pid,
    typeof parsed.pidStarted === "number" ? parsed.pidStarted : undefined,
    JSON.stringify(parsed),
  );
}

function idOf(line: string): string | undefined {
  return line.startsWith('{"id":"') ? line.slice(7, line.indexOf('"', 7)) : undefined;
}

function stringField(line: string, key: string): string | undefined {
  const tag = `"${key}":"`;
  const at = line.indexOf(tag);
  if (at < 0) return undefined;
  const end = line.indexOf('"', at + tag.length);
  return end < 0 ? undefined : line.slice(at + tag.length, end);
}

function numberField(line: string, key: string): string | undefined {
  const tag = `"${key}":`;
  const at = line.indexOf(tag);
  if (at < 0) return undefined;
  const start = at + tag.length;
  let end = start;
  while (end < line.length && line.charCodeAt(end) >= 48 && line.charCodeAt(end) <= 57) end++;
  return end > start ? line.slice(start, end) : undefined;
}

/** Appends summaries the listing built from the sessions' own files (sessions missing from the log). */
export function logStates(home: string, states: SessionState[]): void {
  if (states.length === 0) return;
  try {
    appendLocked(home, states);
  } catch {
    // A read-only RELM_HOME, or a busy lock: the next listing describes them again (nothing is stale).
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

function compactLocked(dir: string, states: Map<string, LoggedState>): void {
  const text = [...states.values()].map((s) => `${s.line}\n`).join("");
  writePrivateFile(join(dir, STATES_LOG), text);
}
