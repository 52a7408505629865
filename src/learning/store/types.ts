// The continual harness's vocabulary: entries, the edits that change them, and the revisions that
// group edits. A scope's revisions.jsonl holds one Revision per line; its current state is derived.

export const KINDS = ["prompt", "memory", "skill", "agent"] as const;
export type EntryKind = (typeof KINDS)[number];

import type { Scope } from "../../config/harness-scopes.js";

export { isWritableScope, SCOPES, type Scope, WRITABLE_SCOPES } from "../../config/harness-scopes.js";

export const HARNESS_LOG_VERSION = 1;

/** One harness entry as the revision log stores it. */
export interface Entry {
  id: string;
  kind: EntryKind;
  /** For skills and agents: the name (a Python identifier / spec name). */
  title: string;
  /** Memory or prompt text; a skill's description; an agent spec's instructions. */
  content: string;
  source: "refine" | "user";
  created: string;
  updated: string;
  /** A skill's Python package (its __init__.py), materialised into the scope's skills folder. */
  code?: string;
}

/** An entry as read: which scope holds it, the last revision that touched it, how often it was used. */
export interface EntryState extends Entry {
  scope: Scope;
  rev: string;
  uses: number;
}

export interface Edit {
  op: "add" | "update" | "remove";
  id: string;
  before: Entry | null;
  after: Entry | null;
  /** Journal event numbers that justify this edit (refine), in the revision's session. */
  evidence?: number[];
  reason?: string;
  /** What the edit should change in the work that follows (e.g. "the gate `pytest -q` stops failing on ImportError"). */
  hypothesis?: string;
}

export interface Revision {
  v: number;
  rev: string;
  /** 1-based position in this scope's log. */
  seq: number;
  parent: string | null;
  time: string;
  /** Who made it: "user", "refine <model>", "agent <session id>". */
  author: string;
  reason: string;
  /** The session whose journal the edits' evidence numbers refer to. */
  evidence: { session: string; events: number[] } | null;
  /** The journal events a refinement reviewed; the next refinement of that session starts after `to`. */
  trajectory?: { session: string; from: number; to: number };
  /** Set when this revision undoes another. */
  revert?: string;
  /** Set when a verdict wrote this revision: an automatic revert (regressed) or a promotion (improved). */
  verdict?: VerdictNote;
  /** Probation scope: the session-scope revision whose lessons this one carries forward. */
  carried?: { session: string; rev: string };
  edits: Edit[];
}

/** Why a revision was written on the strength of a verdict (docs/harness.md, "Verdicts"). */
export interface VerdictNote {
  /** The revision judged, in `scope` (for a promotion: the session or probation scope it came from). */
  rev: string;
  scope: Scope;
  session?: string;
  /** neutral: a lesson on probation retired because it was not shown to help. */
  verdict: "regressed" | "improved" | "neutral";
  /** The windows compared, naming sessions and journal events (gate runs or cells), before and after. */
  evidence: string;
  /** A promotion of an edit learnt in an autonomous run: the replay check (`relm harness verify`) it passed. */
  verify?: { time: string; summary: string };
}

/** Why an edit is made, as its Edit will say. */
type Why = Pick<Edit, "evidence" | "reason" | "hypothesis">;

/**
 * What a caller asks for; the store turns it into an Edit with before/after under its lock. An add may
 * keep an entry's id and creation time (a copy between scopes); a new id is made otherwise.
 */
export type Intent =
  | ({ op: "add" } & Pick<Entry, "kind" | "title" | "content" | "code" | "source"> &
      Partial<Pick<Entry, "id" | "created">> &
      Why)
  | ({ op: "update"; id: string } & Partial<Pick<Entry, "title" | "content" | "code">> & Why)
  | ({ op: "remove"; id: string } & Why);

/** Where a scope's files live. */
export interface ScopeLocation {
  scope: Scope;
  /** revisions.jsonl, uses.jsonl, the lock. */
  dir: string;
  /** Where this scope's skill entries are written as folders (and discovered from). */
  skillsDir: string;
  /** User and session scopes hold private data: files 0600, folders 0700. */
  private: boolean;
  /** Why this scope may not be written now (lockProjectScope); undefined: it may. */
  locked?: string;
}

/** Where the harness of one working directory lives. The session scope exists once a session does. */
export interface HarnessContext {
  cwd: string;
  home: string;
  /** The root session's directory ($RELM_HOME/sessions/ID): its cwd is the session's. */
  sessionDir?: string;
}
