// Copying lessons into a wider scope: `relm harness promote` (a person, with a verdict or vouching for a
// lesson on probation) and a verdict that found a lesson on probation helped. Each copy keeps the entry's
// id, creation time and hypothesis; a lesson on probation leaves probation in the same step.

import {
  checkIntent,
  type Entry,
  type HarnessContext,
  HarnessStore,
  type Intent,
  openStores,
  type Revision,
  roomHint,
  scopeLocation,
  VERDICT_LOG_VERSION,
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

interface Promoted {
  written?: Revision;
  /** Why nothing was written (the target's checks: a duplicate, a full scope, a locked project). */
  refused?: string;
  /** The probation revision that took the entries off probation. */
  removed?: Revision;
}

/** Copies the entries to `to` as one revision and records the promotion; takes them off probation. */
export function promoteEntries(request: PromoteRequest): Promoted {
  const { ctx, source, revision, entries, to } = request;
  const target = new HarnessStore(scopeLocation(to, ctx));
  if (target.location.locked) return { refused: target.location.locked };
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
    const checked = checkIntent(
      { op: "add", kind: entry.kind, title: entry.title, content: entry.content, hypothesis },
      {
        state,
        scopeName: to,
        others,
        batch: intents,
        requireEvidence: false,
        source: entry.source,
        room: roomHint(target.location),
      },
    );
    if (!checked.ok || checked.intent.op !== "add")
      return { refused: `${entry.id}: ${checked.ok ? "not an entry" : checked.reason}` };
    intents.push({ ...checked.intent, id: entry.id, created: entry.created, code: entry.code });
  }
  const { revision: written, dropped } = target.commit({
    intents,
    author: request.author,
    reason: request.reason,
    evidence: request.evidence,
    ...(request.verdict ? { verdict: request.verdict } : {}),
  });
  if (!written) return { refused: dropped[0]?.reason ?? "nothing to write" };
  const log = new VerdictLog(source.location, ctx.home);
  for (const entry of entries) {
    log.append({
      v: VERDICT_LOG_VERSION,
      type: "promotion",
      t: written.time,
      rev: revision.rev,
      entry: entry.id,
      to,
      revision: written.rev,
    });
  }
  return { written, removed: offProbation(ctx, ids, written, to, request.author) };
}

/** Takes entries now in a wider scope off probation (one removal; they are proven, not rejected). */
function offProbation(
  ctx: HarnessContext,
  ids: ReadonlySet<string>,
  written: Revision,
  to: string,
  author: string,
): Revision | undefined {
  const probation = new HarnessStore(scopeLocation("probation", ctx));
  const present = [...ids].filter((id) => probation.state().has(id));
  if (present.length === 0) return undefined;
  return probation.commit({
    intents: present.map((id) => ({ op: "remove", id, reason: `promoted to the ${to} scope` })),
    author,
    reason: `promoted to the ${to} scope as revision ${written.rev}`,
    evidence: null,
  }).revision;
}
