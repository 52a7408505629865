import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  JournalFormatError,
  readDamage,
  readHeaderAndTail,
  readJournalHeader,
  sessionsDir,
} from "../session/index.js";
import type { JournalEvent } from "../session/types.js";
import { isLive } from "./client.js";
import { claimsLiveHost, readState, type SessionState, type SessionStatus, writeState } from "./state.js";
import { UsageTally } from "./tree-usage.js";

export interface SessionListing extends SessionState {
  live: boolean;
  /** The journal is damaged in the middle (as a reader or `relm doctor` found it): where, and how. */
  damaged?: { line?: number; reason: string };
}

/**
 * Every session under RELM_HOME, live or saved, newest first. Reads each session's state file (or, for a
 * session that has none, the head and tail of its journal) and checks the socket only of sessions that
 * claim a live host, so it stays fast with hundreds of sessions and starts no process.
 */
export async function listSessions(home: string): Promise<SessionListing[]> {
  const root = sessionsDir(home);
  if (!existsSync(root)) return [];
  const ids = readdirSync(root).filter((id) => existsSync(join(root, id, "journal.jsonl")));
  const listed = await Promise.all(ids.map((id) => describe(home, id)));
  return listed
    .filter((s): s is SessionListing => s !== undefined)
    .sort((a, b) => b.created.localeCompare(a.created));
}

export async function describe(home: string, id: string): Promise<SessionListing | undefined> {
  const listing = await describeState(home, id);
  // One small file that exists only after a reader found damage: no journal is read for this.
  const damage = listing && readDamage(join(sessionsDir(home), id));
  return damage ? { ...listing, damaged: { line: damage.line, reason: damage.reason } } : listing;
}

async function describeState(home: string, id: string): Promise<SessionListing | undefined> {
  let state = readState(home, id);
  if (!state) {
    state = fromJournal(home, id);
    if (!state) return undefined;
    // Remembered for the next listing; a live host overwrites it whenever it changes anything.
    if (!claimsLiveHost(state.status)) {
      try {
        writeState(home, state);
      } catch {
        // Listing must work on a read-only RELM_HOME too.
      }
    }
  }
  // A host that outlives a failed or interrupted turn (an interactive session waiting for the next
  // message) still claims its pid: check its socket too, but only when that process exists.
  if (!claimsLiveHost(state.status) && !processExists(state.pid)) return { ...state, live: false };
  const live = await isLive(home, id);
  if (live) return { ...state, live };
  if (!claimsLiveHost(state.status)) return { ...state, live: false };
  // The host is gone without saying so (killed, crashed, machine rebooted).
  const status: SessionStatus = state.status === "idle" ? "done" : "interrupted";
  return {
    ...state,
    status,
    reason: status === "interrupted" ? "its host process stopped" : state.reason,
    live,
  };
}

function fromJournal(home: string, id: string): SessionState | undefined {
  const path = join(sessionsDir(home), id, "journal.jsonl");
  try {
    // The last few events decide the status; a bigger tail only when the last line is long.
    let tail = readHeaderAndTail(path, 8192);
    if (tail.events.length === 0) tail = readHeaderAndTail(path);
    const { header, events } = tail;
    const last = events.at(-1) as JournalEvent | undefined;
    const status: SessionStatus =
      last?.type === "final"
        ? "done"
        : last && ["error", "model_error", "budget_stop"].includes(last.type)
          ? "failed"
          : "interrupted";
    // What every journal of the tree says was spent, before and after any resume (a `final` event's
    // `spent` is only its own run's). Read once: the state file written below remembers it.
    const tally = UsageTally.ofTree(join(sessionsDir(home), id));
    return {
      id,
      title: header.title,
      cwd: header.cwd,
      created: header.created,
      status,
      lastActivity: last?.t ?? header.created,
      tokens: tally.usage.input + tally.usage.output,
      cachedTokens: tally.usage.cached,
      cacheWriteTokens: tally.usage.cacheWrite,
      cost: tally.cost,
      pid: 0,
      detached: false,
    };
  } catch (error) {
    // Damaged within the tail read (the read recorded it): listed from its header, to be marked.
    return error instanceof JournalFormatError && error.kind === "damaged" ? fromHeader(path, id) : undefined;
  }
}

/** A session whose journal cannot be read to its end, listed by what its first line still says. */
function fromHeader(path: string, id: string): SessionState | undefined {
  let header: { title: string; cwd: string; created: string };
  try {
    header = readJournalHeader(path);
  } catch {
    // Not even the header: still listed (to be marked), by the file's date.
    try {
      header = { title: "(journal damaged)", cwd: "", created: statSync(path).mtime.toISOString() };
    } catch {
      return undefined;
    }
  }
  return {
    id,
    title: header.title,
    cwd: header.cwd,
    created: header.created,
    status: "interrupted",
    reason: "its journal is damaged",
    lastActivity: header.created,
    tokens: 0,
    cost: null,
    pid: 0,
    detached: false,
  };
}

/** Whether a process with this pid exists (it may belong to someone else: the socket decides). */
function processExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
