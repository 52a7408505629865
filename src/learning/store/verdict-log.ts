// What relm concluded about each applied edit, kept beside the scope's revisions: verdicts (did the work
// after the edit go better or worse than before it), replay checks (`relm harness verify`) and promotions.
// Append-only, one record per line; nothing here changes the harness itself (reverts and promotions are
// revisions of their own).

import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { withLock } from "./lock.js";
import { readJsonLines } from "./log-read.js";
import { ensureDir, projectHash } from "./paths.js";
import type { Scope, ScopeLocation } from "./types.js";

const VERDICTS_FILE = "verdicts.jsonl";
export const VERDICT_LOG_VERSION = 1;

export type Verdict = "improved" | "regressed" | "neutral" | "pending";

/**
 * One unit of a window, named by where it is: with gates, an attempt at a passing gate run (`ok`: it
 * reached one); without gates, a cell (`ok`: it ran without error).
 */
export interface WindowUnit {
  session: string;
  /** Journal events of `session` it spans. */
  from: number;
  to: number;
  time: string;
  ok: boolean;
  /** Model calls and tokens (input + output) it took. */
  turns: number;
  tokens: number;
  /** Its gate runs (journal event numbers) and whether each passed. */
  gateRuns?: { n: number; passed: boolean }[];
  /** Errors of the kind the edit targeted (its evidence's cell errors and failed gates). */
  targeted: number;
  /** A cell that came right after a failed one: a retry. */
  retry?: boolean;
}

export interface WindowSummary {
  units: WindowUnit[];
  /** Attempts that reached a passing gate run / cells that ran without error. */
  ok: number;
  /** Means over the attempts that reached green (gates only). */
  turnsToGreen: number | null;
  tokensToGreen: number | null;
  retries: number;
  targeted: number;
}

/** Where lessons already are in a wider scope: the revision that added them there, who wrote it and when. */
export interface AlreadyPromoted {
  revision: string;
  by: string;
  time: string;
}

/** What was done about a verdict: recorded with it and journaled. */
export interface VerdictOutcome {
  /** The revision that reverted the edit because of this verdict. */
  reverted?: string;
  /** Why a regressed edit was not reverted (a later revision changed the same entries). */
  refused?: string;
  /** Probation: the revision of the project scope the lessons were promoted as. */
  promoted?: string;
  /** Probation: the lessons were retired (`reverted` names the revision): not shown to help. */
  retired?: boolean;
  /** Probation: why an improved lesson stays on probation (a replay check is needed, the project is locked). */
  waiting?: string;
  /** Probation: a person pinned a lesson of the revision, so the verdict does not act on it. */
  pinned?: boolean;
  /**
   * Probation: improved, but the lessons were already in the project scope when this verdict came to
   * promote them (another session's verdict or a person got there first). Nothing was written for this verdict.
   */
  alreadyPromoted?: AlreadyPromoted;
}

/** What the windows before and after an edit say of it. */
export interface Judgement {
  verdict: Verdict;
  /** The window after the edit is full: later work does not change this verdict. */
  final: boolean;
  signal: "gates" | "cells";
  before: WindowSummary;
  after: WindowSummary;
  /** One line: what changed, naming sessions and events. */
  summary: string;
}

/** What every line of a verdicts.jsonl starts with: its kind, when, and the revision it is about. */
interface LogLine<T extends string> {
  v: number;
  type: T;
  t: string;
  rev: string;
}

/** The start of a new line about `rev`: this version, its type, and when (now unless given). */
export function logLine<T extends string>(type: T, rev: string, t = new Date().toISOString()): LogLine<T> {
  return { v: VERDICT_LOG_VERSION, type, t, rev };
}

export interface VerdictRecord extends VerdictOutcome, Judgement, LogLine<"verdict"> {}

/** One replay of the recorded task(s) under `relm harness verify`. */
export interface VerifyRun {
  /** How the run ended: done, gates passed, gates still failing, budget exhausted, error… */
  outcome: string;
  /** null when no gate was run. */
  gatesPassed: boolean | null;
  turns: number;
  tokens: number;
  cost: number | null;
  elapsedMs: number;
  /** The replay's own session id (its journal is under the scratch home, kept only with --keep). */
  session: string;
}

export interface VerifyRecord extends LogLine<"verify"> {
  passed: boolean;
  summary: string;
  /** The session the edit was learnt from, whose task(s) were replayed. */
  session: string;
  model: string;
  tasks: string[];
  gates: string[];
  /** Where the scratch copies came from: the checkpoint the session started from, or a copy of its folder. */
  workspace: { source: "checkpoint" | "copy"; commit?: string };
  budget: { maxTurns?: number; maxTokens?: number; maxCost?: number; maxTimeMs?: number };
  with: VerifyRun;
  without: VerifyRun;
}

/**
 * A replay check that could not run (no endpoint, connection refused, a refused key, the model failing
 * before the first turn, a kernel that did not start): not a check at all. It says nothing about the
 * edit, so `latest(rev, "verify")` never returns it and a promotion treats the edit as not checked yet.
 */
export interface VerifyErrorRecord extends LogLine<"verify_error"> {
  /** What could not run, in one line a person can act on. */
  error: string;
  /** The replay that could not run ("without" runs first). */
  variant: "with" | "without";
  session: string;
  model: string;
}

interface PromotionRecord extends LogLine<"promotion"> {
  entry: string;
  to: Scope;
  /** The revision written in the target scope. */
  revision: string;
}

/**
 * A person pinned (or released) a lesson on probation: verdicts are recorded, never acted on. `rev` is the
 * revision that last changed the entry when it was pinned.
 */
interface PinRecord extends LogLine<"pin"> {
  entry: string;
  pinned: boolean;
}

export type VerdictLogRecord = VerdictRecord | VerifyRecord | VerifyErrorRecord | PromotionRecord | PinRecord;
type RecordOf<T extends VerdictLogRecord["type"]> = Extract<VerdictLogRecord, { type: T }>;

/**
 * Where a scope's verdicts are kept: beside its revisions, except for the project scope. Its verdicts are
 * judged from this user's sessions (in $RELM_HOME) and stay there, under a hash of the project's harness
 * folder: judging and replaying never write into the working tree.
 */
function verdictDir(location: ScopeLocation, home: string): string {
  if (location.private) return location.dir;
  return join(home, "verdicts", projectHash(location.dir));
}

/** A scope's verdicts.jsonl (private: 0600, in 0700 folders). */
export class VerdictLog {
  readonly dir: string;
  readonly path: string;

  constructor(location: ScopeLocation, home: string) {
    this.dir = verdictDir(location, home);
    this.path = join(this.dir, VERDICTS_FILE);
  }

  records(): VerdictLogRecord[] {
    return (readJsonLines(this.path) as (Partial<VerdictLogRecord> | null)[]).filter(
      (r): r is VerdictLogRecord => typeof r?.rev === "string" && typeof r.type === "string",
    );
  }

  /** Entries pinned now (the newest pin record of each says so). */
  pinnedEntries(): Set<string> {
    const pins = new Map<string, boolean>();
    for (const r of this.records()) if (r.type === "pin") pins.set(r.entry, r.pinned);
    return new Set([...pins].flatMap(([id, on]) => (on ? [id] : [])));
  }

  /** The newest record of `type` about revision `rev`. */
  latest<T extends VerdictLogRecord["type"]>(rev: string, type: T): RecordOf<T> | undefined {
    return this.records().findLast((r): r is RecordOf<T> => r.rev === rev && r.type === type);
  }

  /**
   * Appends `record` unless the newest record of its type about the same revision already says the same
   * (`same`), checked under the scope's lock: evaluating twice, or in two processes at once, writes once.
   */
  append<T extends VerdictLogRecord>(record: T, same?: (last: T) => boolean): boolean {
    ensureDir(this.dir, true);
    return withLock(join(this.dir, "verdicts.lock"), () => {
      const last = this.latest(record.rev, record.type) as T | undefined;
      if (last && same?.(last)) return false;
      appendFileSync(this.path, `${JSON.stringify(record)}\n`, { mode: 0o600 });
      return true;
    });
  }
}
