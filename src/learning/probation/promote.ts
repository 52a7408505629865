// Copying lessons into a wider scope: `relm harness promote` (a person, with a verdict or vouching for a
// lesson on probation) and a verdict that found a lesson on probation helped. Each copy keeps the entry's
// id, creation time and hypothesis; a lesson on probation leaves probation in the same step.

import {
  type AlreadyPromoted,
  checkCopy,
  type Entry,
  HarnessConflictError,
  type HarnessContext,
  HarnessStore,
  type Intent,
  logLine,
  openStores,
  type Revision,
  VerdictLog,
  type VerdictNote,
} from "../store/index.js";

interface PromoteRequest {
  ctx: HarnessContext;
  /** The scope the entries come from (session or probation). */
  source: HarnessStore;
  /** The revision of `source` that was judged (its hypotheses go with the copies). */
  revision: Revision;
  entries: readonly Entry[];
  to: "project" | "user";
  author: string;
  reason: string;
  evidence: Revision["evidence"];
  /** Set when a verdict is why (not when a person vouches). */
  verdict?: VerdictNote;
}

export interface Promoted {
  written?: Revision;
  /**
   * Nothing written because every entry is already in the target under its own id: another session's
   * verdict or a person promoted it first (two promotions racing), named here instead of a duplicate.
   */
  already?: AlreadyPromoted;
  /** Why nothing was written (the target's checks: a duplicate, a full scope, a locked project). */
  refused?: string;
}

/**
 * The revision of `target` that added every one of `ids` (the newest such), when all of them are there
 * under their own ids; undefined when any is missing.
 */
export function alreadyIn(target: HarnessStore, ids: readonly string[]): AlreadyPromoted | undefined {
  if (ids.length === 0) return undefined;
  const state = target.state();
  if (ids.some((id) => !state.has(id))) return undefined;
  const wanted = new Set(ids);
  const added = target.revisions().findLast((r) => r.edits.some((e) => e.op === "add" && wanted.has(e.id)));
  const rev = added?.rev ?? (state.get(ids[0] as string)?.rev as string);
  return { revision: rev, by: added?.author ?? "?", time: added?.time ?? "" };
}

/** What a promote that found the lesson already promoted says (two promotions racing, or a second try). */
export function alreadyPromotedLine(id: string, to: string, already: AlreadyPromoted): string {
  return `${id} was already promoted: it is in the ${to} scope since revision ${already.revision} (by ${already.by}${already.time ? `, ${already.time}` : ""}); nothing written\n`;
}

/** The same entries already in `to`: nothing is copied again; they leave probation if they are still on it. */
function alreadyPromoted(
  ctx: HarnessContext,
  target: HarnessStore,
  entries: readonly Entry[],
  to: string,
  author: string,
): Promoted | undefined {
  const ids = entries.map((e) => e.id);
  const already = alreadyIn(target, ids);
  if (!already) return undefined;
  offProbation(ctx, new Set(ids), already.revision, to, author);
  return { already };
}

/** Copies the entries to `to` as one revision and records the promotion; takes them off probation. */
export function promoteEntries(request: PromoteRequest): Promoted {
  const { ctx, source, revision, entries, to } = request;
  const target = HarnessStore.of(to, ctx);
  if (target.location.locked) return { refused: target.location.locked };
  // Promoted meanwhile (another session's verdict, a person): say so, rather than refuse a duplicate.
  const before = alreadyPromoted(ctx, target, entries, to, request.author);
  if (before) return before;
  const ids = new Set(entries.map((e) => e.id));
  const others = openStores(ctx)
    .filter((s) => s.scope !== to)
    .flatMap((s) => s.entries())
    .filter((e) => !ids.has(e.id));
  const state = target.state();
  const intents: Intent[] = [];
  const history = source.revisions();
  for (const entry of entries) {
    // The judged revision's, else the last one said for the entry (a revert brought it back without one).
    const hypothesis =
      revision.edits.find((e) => e.id === entry.id)?.hypothesis ??
      history.flatMap((r) => r.edits).findLast((e) => e.id === entry.id && e.hypothesis)?.hypothesis;
    const checked = checkCopy(
      entry,
      { state, location: target.location, others, batch: intents },
      hypothesis,
    );
    if (!checked.ok) return { refused: `${entry.id}: ${checked.reason}` };
    intents.push(checked.intent);
  }
  // The request's author, reason, evidence and verdict are the revision's.
  const { revision: written, dropped } = target.commit({ ...request, intents });
  if (!written) {
    // The other promotion won the race between the check above and this write (under the lock).
    return (
      alreadyPromoted(ctx, target, entries, to, request.author) ?? {
        refused: dropped[0]?.reason ?? "nothing to write",
      }
    );
  }
  const log = new VerdictLog(source.location, ctx.home);
  for (const entry of entries) {
    log.append({
      ...logLine("promotion", revision.rev, written.time),
      entry: entry.id,
      to,
      revision: written.rev,
    });
  }
  offProbation(ctx, ids, written.rev, to, request.author);
  return { written };
}

/**
 * Takes entries now in a wider scope off probation (one removal; they are proven, not rejected). Two
 * promotions racing both get here: the second finds them gone and writes nothing.
 */
function offProbation(
  ctx: HarnessContext,
  ids: ReadonlySet<string>,
  written: string,
  to: string,
  author: string,
): void {
  const probation = HarnessStore.of("probation", ctx);
  const present = [...ids].filter((id) => probation.state().has(id));
  if (present.length === 0) return;
  try {
    probation.commit({
      intents: present.map((id) => ({ op: "remove", id, reason: `promoted to the ${to} scope` })),
      // Against the state just read: an entry removed meanwhile (the other promotion) refuses the write.
      parent: probation.head(),
      author,
      reason: `promoted to the ${to} scope as revision ${written}`,
      evidence: null,
    });
  } catch (err) {
    if (!(err instanceof HarnessConflictError)) throw err;
  }
}
