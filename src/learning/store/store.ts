import {
  appendFileSync,
  closeSync,
  existsSync,
  fchmodSync,
  openSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { UserError } from "../../config/errors.js";
import { byIdOrPrefix } from "./by-id.js";
import { intentToEdit } from "./edits.js";
import { limitViolation } from "./limits.js";
import { withLock } from "./lock.js";
import { type LogProblem, noteLogProblems, readJsonLines, readLog } from "./log-read.js";
import { ensureDir, HarnessScopeError, scopeLocation, writeFile } from "./paths.js";
import { syncSkillFolders } from "./skill-files.js";
import {
  applyEdits,
  type Current,
  deriveState,
  entriesOf,
  inverseEdits,
  laterTouching,
  newRevisionId,
  sortEntries,
} from "./state.js";
import {
  type Edit,
  type Entry,
  type EntryState,
  HARNESS_LOG_VERSION,
  type HarnessContext,
  type Intent,
  type Revision,
  type Scope,
  type ScopeLocation,
} from "./types.js";

export { HarnessLogError } from "./log-read.js";

export const REVISIONS_FILE = "revisions.jsonl";
const USES_FILE = "uses.jsonl";
/** Held by every writer of a scope (revisions and verdicts alike). */
const LOCK_FILE = "revisions.lock";

/** An edit that would silently overwrite a later one; the message names the revision in the way. */
export class HarnessConflictError extends UserError {
  override name = "HarnessConflictError";
  readonly code = "conflict";
}

/** A write that would take a scope past its limits (limits.ts); the message says how to make room. */
export class HarnessLimitError extends HarnessConflictError {
  override name = "HarnessLimitError";
}

interface CommitRequest {
  intents: Intent[];
  /** The head the intents were made against; when the log has moved on, they are rebased or refused. */
  parent?: string | null;
  author: string;
  reason: string;
  evidence?: Revision["evidence"];
  trajectory?: Revision["trajectory"];
  /** A promotion on the strength of a verdict names it. */
  verdict?: Revision["verdict"];
  /** Probation: the session-scope revision carried forward. */
  carried?: Revision["carried"];
  now?: Date;
  /**
   * Not held to the scope's limits: only for a copy of entries that are held to them where they live
   * (a replay's scratch harness gathers several scopes into one).
   */
  unbounded?: boolean;
}

export interface CommitResult {
  /** Undefined when nothing was left to write. */
  revision?: Revision;
  /** Adds dropped because an equal entry appeared in the meantime, or the scope has no room for them. */
  dropped: { intent: Intent; reason: string }[];
}

/** Which use-count key an entry is counted under (skills by the name they are imported as). */
export function useKey(entry: Pick<Entry, "id" | "kind" | "title">): string {
  return entry.kind === "skill" || entry.kind === "agent" ? `${entry.kind}:${entry.title}` : entry.id;
}

/**
 * One scope's harness: an append-only revision log and the state derived from it. Writers serialise
 * on a lock file and compare the parent revision they worked from with the log's head.
 */
export class HarnessStore {
  readonly logPath: string;
  readonly usesPath: string;

  constructor(readonly location: ScopeLocation) {
    this.logPath = join(location.dir, REVISIONS_FILE);
    this.usesPath = join(location.dir, USES_FILE);
  }

  /** The store of `scope` as seen from `ctx`. */
  static of(scope: Scope, ctx: HarnessContext): HarnessStore {
    return new HarnessStore(scopeLocation(scope, ctx));
  }

  get scope() {
    return this.location.scope;
  }

  revisions(): Revision[] {
    return this.read().revisions;
  }

  /** Lines of the log (or edits in them) left out because they are damaged; empty when it is whole. */
  problems(): LogProblem[] {
    return this.read().problems;
  }

  head(): string | null {
    return this.revisions().at(-1)?.rev ?? null;
  }

  state(): Current {
    return deriveState(this.revisions());
  }

  /** Current entries with scope, last revision and use count, in print order. */
  entries(): EntryState[] {
    const uses = this.useCounts();
    return sortEntries(
      [...this.state().values()].map(({ entry, rev }) => ({
        ...entry,
        scope: this.scope,
        rev,
        uses: uses.get(useKey(entry)) ?? 0,
      })),
    );
  }

  /** A revision by id or unique prefix. */
  find(query: string): { revision: Revision } {
    const revision = byIdOrPrefix(this.revisions(), query, {
      noun: "revision",
      id: (r) => r.rev,
      where: `in the ${this.scope} scope`,
      shown: (r) => `${r.rev} (${this.scope} scope)`,
      narrow: "give more characters",
    });
    return { revision };
  }

  commit(request: CommitRequest): CommitResult {
    return this.locked((revisions, state) => {
      const now = (request.now ?? new Date()).toISOString();
      const moved = request.parent !== undefined && request.parent !== (revisions.at(-1)?.rev ?? null);
      if (moved) refuseStaleEdits(request, revisions);
      const dropped: CommitResult["dropped"] = [];
      const edits: Edit[] = [];
      const working: Current = new Map(state);
      for (const intent of request.intents) {
        const edit = intentToEdit(intent, working, now, this.scope);
        if ("dropped" in edit) {
          // Updates and removes of a vanished entry were refused above when the log moved; here it is
          // an add that someone else made in the meantime.
          if (intent.op !== "add") throw new HarnessConflictError(edit.dropped);
          dropped.push({ intent, reason: edit.dropped });
          continue;
        }
        const trial: Current = new Map(working);
        applyEdits(trial, [edit], "");
        // Measured against the scope before this write: a scope already over may shrink, never grow.
        const over = request.unbounded ? undefined : limitViolation(state, trial, this.location);
        if (over) {
          if (intent.op !== "add") throw new HarnessLimitError(over);
          dropped.push({ intent, reason: over });
          continue;
        }
        edits.push(edit);
        applyEdits(working, [edit], "");
      }
      if (edits.length === 0) return { dropped };
      // append() takes a revision's fields by name: the request's own (intents, parent…) stay out.
      const revision = this.append(revisions, {
        ...request,
        evidence: request.evidence ?? null,
        edits,
        time: now,
      });
      return { revision, dropped };
    });
  }

  /**
   * Appends the inverse of `query`. Refused, naming the later revision, when a later revision touched
   * one of its entries (the undo would silently overwrite that work) unless `force` is set.
   */
  revert(
    query: string,
    options: { force?: boolean; author: string; reason?: string; verdict?: Revision["verdict"] },
  ): Revision {
    const { revision: target } = this.find(query);
    return this.locked((revisions, state) => {
      const index = revisions.findIndex((r) => r.rev === target.rev);
      const later = laterTouching(revisions, index);
      const first = later[0];
      if (first && !options.force) {
        const ids = new Set(target.edits.map((e) => e.id));
        const touched = first.edits.filter((e) => ids.has(e.id)).map((e) => e.id);
        throw new HarnessConflictError(
          `cannot revert ${target.rev}: the later revision ${first.rev} (${first.time}, ${first.reason || first.author}) ` +
            `also changed ${touched.join(", ")}${later.length > 1 ? ` (and ${later.length - 1} more revisions)` : ""}. ` +
            `Revert ${first.rev} first, or use --force to put the entries back as they were before ${target.rev}.`,
        );
      }
      const edits = inverseEdits(target, state);
      if (edits.length === 0) {
        throw new HarnessConflictError(
          `nothing to revert: the entries of ${target.rev} are already as before it`,
        );
      }
      const after: Current = new Map(state);
      applyEdits(after, edits, "");
      const over = limitViolation(state, after, this.location);
      if (over)
        throw new HarnessLimitError(
          `cannot revert ${target.rev}: it would bring back more than fits: ${over}`,
        );
      return this.append(revisions, {
        ...options,
        reason: options.reason ?? `revert ${target.rev}${first ? " (forced)" : ""}`,
        evidence: null,
        revert: target.rev,
        edits,
        time: new Date().toISOString(),
      });
    });
  }

  /** Counts one use of an entry (a cited memory, an imported skill); kept apart from the revisions. */
  recordUse(key: string, session?: string): void {
    if (this.location.locked) return; // a count is not worth writing where relm may not write
    ensureDir(this.location.dir, this.location.private);
    this.ensureGitignore();
    const line = `${JSON.stringify({ t: new Date().toISOString(), key, session })}\n`;
    appendFileSync(this.usesPath, line, { mode: this.location.private ? 0o600 : 0o644 });
  }

  useCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const line of readJsonLines(this.usesPath)) {
      const key = (line as { key?: unknown } | null)?.key;
      if (typeof key === "string") counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  }

  private locked<T>(work: (revisions: Revision[], state: Current) => T): T {
    if (this.location.locked) throw new HarnessScopeError(this.location.locked);
    ensureDir(this.location.dir, this.location.private);
    this.ensureGitignore();
    return withLock(join(this.location.dir, LOCK_FILE), () => {
      const { revisions, tornAt, unterminated } = this.read();
      // A line half-written by a crashed writer must not get the next revision glued onto it.
      if (tornAt !== undefined) truncateSync(this.logPath, tornAt);
      if (unterminated) appendFileSync(this.logPath, "\n");
      return work(revisions, deriveState(revisions));
    });
  }

  private append(revisions: Revision[], fields: Omit<Revision, "v" | "rev" | "seq" | "parent">): Revision {
    // Fields in one fixed order, so a log reads the same line after line.
    const revision: Revision = {
      v: HARNESS_LOG_VERSION,
      rev: newRevisionId(),
      seq: revisions.length + 1,
      parent: revisions.at(-1)?.rev ?? null,
      time: fields.time,
      author: fields.author,
      reason: fields.reason,
      evidence: fields.evidence,
      ...(fields.trajectory ? { trajectory: fields.trajectory } : {}),
      ...(fields.revert ? { revert: fields.revert } : {}),
      ...(fields.verdict ? { verdict: fields.verdict } : {}),
      ...(fields.carried ? { carried: fields.carried } : {}),
      edits: fields.edits,
    };
    const fd = openSync(this.logPath, "a", this.location.private ? 0o600 : 0o644);
    try {
      if (this.location.private) fchmodSync(fd, 0o600);
      writeSync(fd, `${JSON.stringify(revision)}\n`);
    } finally {
      closeSync(fd);
    }
    if (revision.edits.some((e) => (e.after ?? e.before)?.kind === "skill")) {
      syncSkillFolders(this.location, entriesOf(deriveState([...revisions, revision])));
    }
    return revision;
  }

  private read(): ReturnType<typeof readLog> {
    const read = readLog(this.logPath);
    noteLogProblems(this.logPath, read.problems);
    return read;
  }

  /** The project scope is committed with the repository; the lock and private use counts are not. */
  private ensureGitignore(): void {
    if (this.location.private) return;
    const path = join(this.location.dir, ".gitignore");
    if (!existsSync(path)) writeFile(path, `${USES_FILE}\n${LOCK_FILE}\n`, false);
  }
}

/** When the log moved on since `parent`, updates and removes of entries touched since then are refused. */
function refuseStaleEdits(request: CommitRequest, revisions: Revision[]): void {
  const start = request.parent === null ? 0 : revisions.findIndex((r) => r.rev === request.parent) + 1;
  if (start === 0 && request.parent !== null) {
    throw new HarnessConflictError(
      `revision ${request.parent} is no longer in the log; run the refinement again`,
    );
  }
  const since = revisions.slice(start);
  for (const intent of request.intents) {
    if (intent.op === "add") continue;
    const by = since.find((r) => r.edits.some((e) => e.id === intent.id));
    if (by) {
      throw new HarnessConflictError(
        `entry ${intent.id} was changed by revision ${by.rev} after these edits were proposed; run the refinement again`,
      );
    }
  }
}
