// Edits that must earn their place: every applied edit is judged on the work that followed it, against
// the comparable work before it; a regression is reverted (a revision naming the evidence), an
// improvement is recorded so the edit can be promoted. Idempotent: the same windows write nothing new.
// When it runs: after each gate run and at the end of each autonomous run (the host), and on
// `relm harness stats`.

import {
  HarnessConflictError,
  type HarnessContext,
  type HarnessStore,
  openStores,
  type Revision,
  type Scope,
  VERDICT_LOG_VERSION,
  VerdictLog,
  type VerdictRecord,
  type WindowUnit,
} from "../store/index.js";
import { cellUse, revisionSide, targetedErrors, tracesFor } from "./verdict-sides.js";
import { attemptsOf, cellsOf } from "./verdict-units.js";
import {
  type Judgement,
  judgeAttempts,
  judgeCells,
  WINDOW,
  type WindowLimits,
  windows,
} from "./verdict-windows.js";

/** Revisions per scope looked at, newest first: older ones have had their chance. */
const MAX_OPEN = 20;

interface EvaluateOptions {
  /** Write verdicts and revert regressions; false only computes (`relm harness stats --dry-run`). */
  apply: boolean;
  scopes?: readonly Scope[];
  limits?: WindowLimits;
  /** Who an automatic revert is by (default "verdict"). */
  author?: string;
  now?: Date;
}

export interface Evaluated {
  scope: Scope;
  revision: Revision;
  hypotheses: string[];
  judgement: Judgement;
  /** A new verdict record was written by this evaluation. */
  written: boolean;
  /** The automatic revert (this evaluation's or an earlier one's). */
  reverted?: string;
  refused?: string;
}

const unitKey = (units: readonly WindowUnit[]) =>
  units.map((u) => `${u.session}:${u.from}:${u.ok}`).join(",");

function sameVerdict(a: VerdictRecord, b: VerdictRecord): boolean {
  return (
    a.verdict === b.verdict &&
    a.final === b.final &&
    unitKey(a.before.units) === unitKey(b.before.units) &&
    unitKey(a.after.units) === unitKey(b.after.units)
  );
}

function fromRecord(record: VerdictRecord): Judgement {
  return {
    verdict: record.verdict,
    final: record.final,
    signal: record.signal,
    before: record.before,
    after: record.after,
    summary: record.summary,
  };
}

/** The verdict on one revision now, from the sessions its scope reaches. */
function judgeRevision(
  revision: Revision,
  scope: Scope,
  ctx: HarnessContext,
  limits: WindowLimits = WINDOW,
): Judgement {
  const traces = tracesFor(scope, ctx);
  const options = { side: revisionSide(revision), targeted: targetedErrors(revision, ctx.home) };
  const attempts = traces.flatMap((t) => attemptsOf(t, options));
  const gated = windows(attempts, revision.time, limits.attempts);
  if (gated.before.length + gated.after.length > 0) return judgeAttempts(gated.before, gated.after, limits);
  // No gate ran on either side: the cells that used the entry are the signal.
  const use = cellUse(revision);
  const cells = traces.flatMap((t) => cellsOf(t, { ...options, uses: use.uses }));
  const celled = windows(cells, revision.time, limits.cells, (c) => !use.needsUse || c.used);
  return judgeCells(celled.before, celled.after, limits);
}

/** Judges the open revisions of the scopes visible from `ctx`; with `apply`, records and reverts. */
export function evaluateVerdicts(ctx: HarnessContext, options: EvaluateOptions): Evaluated[] {
  const out: Evaluated[] = [];
  for (const store of openStores(ctx)) {
    if (options.scopes && !options.scopes.includes(store.scope)) continue;
    const revisions = store.revisions();
    if (revisions.length === 0) continue;
    const revertedBy = new Map(revisions.flatMap((r) => (r.revert ? [[r.revert, r.rev] as const] : [])));
    const log = new VerdictLog(store.location, ctx.home);
    const candidates = revisions.filter((r) => r.edits.length > 0 && !r.revert).slice(-MAX_OPEN);
    for (const revision of candidates) {
      const latest = log.latest(revision.rev, "verdict");
      const hypotheses = revision.edits.flatMap((e) => (e.hypothesis ? [e.hypothesis] : []));
      const base = { scope: store.scope, revision, hypotheses };
      const undone = revertedBy.get(revision.rev);
      if (latest && (latest.final || undone)) {
        out.push({
          ...base,
          judgement: fromRecord(latest),
          written: false,
          reverted: latest.reverted ?? undone,
          refused: latest.refused,
        });
        continue;
      }
      // Reverted by hand before any verdict: it is out of force, there is nothing to judge.
      if (undone) continue;
      const judgement = judgeRevision(revision, store.scope, ctx, options.limits);
      const evaluated: Evaluated = { ...base, judgement, written: false };
      out.push(evaluated);
      if (!options.apply || judgement.verdict === "pending") continue;
      const record: VerdictRecord = {
        v: VERDICT_LOG_VERSION,
        type: "verdict",
        t: (options.now ?? new Date()).toISOString(),
        rev: revision.rev,
        verdict: judgement.verdict,
        final: judgement.final,
        signal: judgement.signal,
        before: judgement.before,
        after: judgement.after,
        summary: judgement.summary,
      };
      if (latest && sameVerdict(latest, record)) {
        evaluated.refused = latest.refused;
        continue;
      }
      if (judgement.verdict === "regressed") {
        const outcome = revertRegression(
          store,
          revision,
          judgement,
          options.author ?? "verdict",
          options.now,
        );
        Object.assign(record, outcome);
        Object.assign(evaluated, outcome);
      }
      evaluated.written = log.append(record, (last) => sameVerdict(last, record));
    }
  }
  return out;
}

function revertRegression(
  store: HarnessStore,
  revision: Revision,
  judgement: Judgement,
  author: string,
  now?: Date,
): { reverted?: string; refused?: string } {
  try {
    const undo = store.revert(revision.rev, {
      author,
      now,
      reason: `automatic revert of ${revision.rev}: ${judgement.summary}`,
      verdict: {
        rev: revision.rev,
        scope: store.scope,
        verdict: "regressed",
        evidence: judgement.summary,
      },
    });
    return { reverted: undo.rev };
  } catch (error) {
    // A later revision changed the same entries (undoing this one would overwrite that work), or the
    // scope has no room for what the revert would bring back.
    if (error instanceof HarnessConflictError) return { refused: error.message };
    throw error;
  }
}
