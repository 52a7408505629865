import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { processRuns } from "../../config/process.js";
// The session layer's modules by name, not its index: `relm agents` loads only what a listing needs.
import { DAMAGED_INDEX, damagedIds, readDamage } from "../../session/damage.js";
import { JournalFormatError } from "../../session/errors.js";
import { sessionsDir } from "../../session/paths.js";
import { readHeaderAndTail, readJournalHeader } from "../../session/read.js";
import type { JournalEvent } from "../../session/types.js";
import { isLive } from "../client.js";
import { compactIfWorthIt, indexDir, logStates, readLog, STATES_LOG } from "./log.js";
import { claimsLiveHost, readState, type SessionState, type SessionStatus, writeStateFile } from "./state.js";
import { UsageTally } from "./tree-usage.js";
import { type SessionListing, unhostedState } from "./types.js";

/** A session the listing knows: the fields it sorts and filters by, its whole summary on demand. */
interface Known {
  id: string;
  created: string;
  status: string;
  pid: number;
  pidStarted?: number;
  readonly state: SessionState;
}

/**
 * Every session under RELM_HOME, live or saved, newest first. Reads index/states.jsonl (every summary a
 * host wrote, log.ts) and one readdir of sessions/; only a session the log does not know is
 * described from its own files (its state file, or the head and tail of its journal) and then logged.
 * Sockets are checked only for sessions that claim a live host, so a listing of a thousand sessions
 * reads a few files and starts no process.
 */
/**
 * What a listing reads besides the liveness of hosts, in one string that changes whenever any of it does:
 * the sessions directory (a session added or removed), the states log every state change is appended to
 * (log.ts; rewritten or dropped, it changes too) and the index of damaged journals. Equal stamps with no
 * host that may live between two listings: the second would list the same.
 */
export function listingStamp(home: string): string {
  const index = indexDir(home);
  return [sessionsDir(home), join(index, STATES_LOG), join(index, DAMAGED_INDEX)]
    .map((path) => {
      try {
        const s = statSync(path);
        return `${s.ino}:${s.size}:${s.mtimeMs}`;
      } catch {
        return "-";
      }
    })
    .join("|");
}

export async function listSessions(home: string): Promise<SessionListing[]> {
  return (await listNewest(home, Number.POSITIVE_INFINITY)).listings;
}

/**
 * The sessions a person looks at first: every one whose host may be live or whose journal is damaged,
 * and the `newest` others; `hidden` counts the rest. Only the summaries shown are parsed.
 */
export async function listNewest(
  home: string,
  newest: number,
): Promise<{ listings: SessionListing[]; hidden: number }> {
  const known = knownSessions(home);
  // Read after the sessions described from their journals: reading one may have found damage.
  const damaged = damagedIds(home);
  known.sort(newestFirst);
  const listings: SessionListing[] = [];
  const checks: Promise<void>[] = [];
  let others = 0;
  let hidden = 0;
  for (const k of known) {
    // A recorded pid another process has since been given (its start time differs) is no host of ours.
    const mayLive = claimsLiveHost(k.status as SessionStatus) || processRuns(k.pid, k.pidStarted);
    if (!mayLive && !damaged.has(k.id) && others++ >= newest) {
      hidden++;
      continue;
    }
    // Most sessions are over and their host gone: listed as they are. Only those whose host may live are
    // checked on their sockets (in parallel), each filling its own place in the order.
    const at = listings.push({ ...k.state, live: false }) - 1;
    if (mayLive)
      checks.push(
        withLiveness(home, k.state).then((listing) => {
          listings[at] = listing;
        }),
      );
  }
  await Promise.all(checks);
  for (let i = 0; i < listings.length; i++) {
    const listing = listings[i] as SessionListing;
    if (damaged.has(listing.id)) listings[i] = withDamage(home, listing);
  }
  return { listings, hidden };
}

/** ISO timestamps, ordered as plain strings (localeCompare would ask ICU for each of the n log n pairs). */
function newestFirst(a: { created: string }, b: { created: string }): number {
  return a.created < b.created ? 1 : a.created > b.created ? -1 : 0;
}

/** Every session: from the log, or (not in it yet) from its own files, then logged. */
function knownSessions(home: string): Known[] {
  const root = sessionsDir(home);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const log = readLog(home);
  const fresh: SessionState[] = [];
  const known: Known[] = [];
  for (const id of names) {
    const logged = log.states.get(id);
    if (logged) {
      known.push(logged);
      continue;
    }
    if (!existsSync(join(root, id, "journal.jsonl"))) continue;
    const state = stateOf(home, id);
    if (!state) continue;
    fresh.push(state);
    known.push({ ...state, id, state });
  }
  logStates(home, fresh);
  compactIfWorthIt(home, log, new Set(known.map((k) => k.id)));
  return known;
}

export async function describe(home: string, id: string): Promise<SessionListing | undefined> {
  const state = stateOf(home, id);
  return state && withDamage(home, await withLiveness(home, state));
}

/** The damage a reader recorded for the session's journal, if it still applies. */
function withDamage(home: string, listing: SessionListing): SessionListing {
  // One small file that exists only after a reader found damage: no journal is read for this.
  const damage = readDamage(join(sessionsDir(home), listing.id));
  return damage ? { ...listing, damaged: { line: damage.line, reason: damage.reason } } : listing;
}

/** The session's summary from its own files: state.json, or its journal (then remembered in state.json). */
function stateOf(home: string, id: string): SessionState | undefined {
  let state = readState(home, id);
  if (!state) {
    state = fromJournal(home, id);
    if (!state) return undefined;
    // Remembered for the next listing; a live host overwrites it whenever it changes anything.
    if (!claimsLiveHost(state.status)) {
      try {
        writeStateFile(home, state);
      } catch {
        // Listing must work on a read-only RELM_HOME too.
      }
    }
  }
  return state;
}

async function withLiveness(home: string, state: SessionState): Promise<SessionListing> {
  const claims = claimsLiveHost(state.status);
  // A host that outlives a failed or interrupted turn (an interactive session waiting for the next
  // message) still claims its pid: check its socket too, but only when that process exists.
  if (!claims && !processRuns(state.pid, state.pidStarted)) return { ...state, live: false };
  const live = await isLive(home, state.id);
  if (live || !claims) return { ...state, live };
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
    let ended = lastTurnEnd(tail.events as JournalEvent[]);
    if (ended === undefined) {
      tail = readHeaderAndTail(path, tail.size);
      ended = lastTurnEnd(tail.events as JournalEvent[]);
    }
    const { header, events } = tail;
    const last = events.at(-1) as JournalEvent | undefined;
    const status = ended ?? "interrupted";
    // What every journal of the tree says was spent, before and after any resume (a `final` event's
    // `spent` is only its own run's). Read once: the state file written below remembers it.
    const tally = UsageTally.ofTree(join(sessionsDir(home), id));
    return {
      ...unhostedState(id, header, status),
      lastActivity: last?.t ?? header.created,
      ...tally.totals(),
    };
  } catch (error) {
    // Damaged within the tail read (the read recorded it): listed from its header, to be marked.
    return error instanceof JournalFormatError && error.kind === "damaged" ? fromHeader(path, id) : undefined;
  }
}

/**
 * How the session's last turn ended, from the last event that ends or starts one: a finished session's
 * journal goes on after its `final` (the end of session snapshot, kernel, hook and checkpoint records),
 * so its very last event says nothing. A `user` event (a turn's first) with no end after it: interrupted.
 * A `resumed` one: the next host settled what was in flight and waited for work. Undefined: none seen.
 */
function lastTurnEnd(events: JournalEvent[]): SessionStatus | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const type = (events[i] as JournalEvent).type;
    if (type === "final" || type === "resumed") return "done";
    if (type === "error" || type === "model_error" || type === "budget_stop") return "failed";
    if (type === "interrupted" || type === "user") return "interrupted";
  }
  return undefined;
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
  return { ...unhostedState(id, header, "interrupted"), reason: "its journal is damaged" };
}
