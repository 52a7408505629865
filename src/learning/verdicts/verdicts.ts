// Edits that must earn their place: every applied edit is judged on the work that followed it, against
// the comparable work before it; a regression is reverted (a revision naming the evidence), an
// improvement is recorded so the edit can be promoted; lessons on probation are promoted or retired
// (probation/act.ts). Idempotent: the same windows and outcome write nothing new.
// When it runs: after each gate run and at the end of each autonomous run (the host), and on
// `relm harness stats`.

import { actOnProbation, stillOnProbation } from "../probation/act.js";
import { carriedFrom, sessionProject } from "../probation/carry.js";
import {
  type HarnessContext,
  HarnessStore,
  type Judgement,
  logLine,
  openStores,
  type Revision,
  type Scope,
  VerdictLog,
  type VerdictOutcome,
  type VerdictRecord,
  type WindowUnit,
} from "../store/index.js";
import { revertForVerdict } from "./verdict-revert.js";
import { cellUse, revisionSide, sessionRevisionTraces, targetedErrors, tracesFor } from "./verdict-sides.js";
import { attemptsOf, cellsOf } from "./verdict-units.js";
import { judgeAttempts, judgeCells, WINDOW, windows } from "./verdict-windows.js";

/** Revisions per scope looked at, newest first: older ones have had their chance. */
const MAX_OPEN = 20;

interface EvaluateOptions {
  /** Write verdicts and revert regressions; false only computes (`relm harness stats --dry-run`). */
  apply: boolean;
  scopes?: readonly Scope[];
}

export interface Evaluated extends VerdictOutcome {
  scope: Scope;
  revision: Revision;
  hypotheses: string[];
  judgement: Judgement;
  /** A new verdict record was written by this evaluation. */
  written: boolean;
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
  const { verdict, final, signal, before, after, summary } = record;
  return { verdict, final, signal, before, after, summary };
}

/** The verdict on one revision now, from the sessions its scope reaches. */
function judgeRevision(revision: Revision, scope: Scope, ctx: HarnessContext): Judgement {
  const side = revisionSide(revision);
  const traces = scope === "session" ? sessionRevisionTraces(revision, ctx, side) : tracesFor(scope, ctx);
  const options = { side, targeted: targetedErrors(revision, ctx.home) };
  // A lesson on probation is judged on the sessions after the one that learnt it (whose own verdict, in
  // its session scope, covers its work); the learner's work before it still counts as the window before.
  const learner = scope === "probation" ? revision.carried?.session : undefined;
  // A promotion was judged where it came from: in its new scope it counts from its promotion on.
  const since = revision.verdict?.verdict === "improved" && !revision.revert ? revision.time : "";
  const later = (u: { session: string; time: string }) => u.session !== learner && u.time >= since;
  const attempts = traces.flatMap((t) => attemptsOf(t, options));
  const gated = windows(attempts, revision.time, WINDOW.attempts, later);
  if (gated.before.length + gated.after.length > 0) return judgeAttempts(gated.before, gated.after);
  // No gate ran on either side: the cells that used the entry are the signal.
  const use = cellUse(revision);
  const cells = traces.flatMap((t) => cellsOf(t, { ...options, uses: use.uses }));
  const celled = windows(cells, revision.time, WINDOW.cells, (c) => later(c) && (!use.needsUse || c.used));
  return judgeCells(celled.before, celled.after);
}

/**
 * Whether nothing more can happen to a revision: reverted; outside probation, a final verdict; on
 * probation, promoted or no entry of it left there (an improved lesson waiting for its replay check, or a
 * pinned one, is looked at again).
 */
function settled(store: HarnessStore, revision: Revision, latest: VerdictRecord | undefined): boolean {
  if (store.scope !== "probation") return latest?.final === true;
  if (latest?.promoted || latest?.reverted || latest?.alreadyPromoted) return true;
  return stillOnProbation(store, revision).length === 0;
}

/** Judges the open revisions of the scopes visible from `ctx`; with `apply`, records and acts. */
export function evaluateVerdicts(ctx: HarnessContext, options: EvaluateOptions): Evaluated[] {
  const out: Evaluated[] = [];
  for (const store of openStores(ctx)) {
    if (options.scopes && !options.scopes.includes(store.scope)) continue;
    const revisions = store.revisions();
    if (revisions.length === 0) continue;
    const probation = store.scope === "probation";
    const revertedBy = new Map(revisions.flatMap((r) => (r.revert ? [[r.revert, r.rev] as const] : [])));
    const log = new VerdictLog(store.location, ctx.home);
    // On probation, only what was carried forward is judged (not promotions' and rejections' removals).
    const candidates = revisions
      .filter((r) => r.edits.length > 0 && !r.revert && (!probation || r.carried))
      .slice(-MAX_OPEN);
    for (const revision of candidates) {
      const latest = log.latest(revision.rev, "verdict");
      const hypotheses = revision.edits.flatMap((e) => (e.hypothesis ? [e.hypothesis] : []));
      const base = { scope: store.scope, revision, hypotheses };
      const undone = revertedBy.get(revision.rev);
      if (latest && (undone || settled(store, revision, latest))) {
        out.push({ ...base, judgement: fromRecord(latest), written: false, ...outcomeOf(latest, undone) });
        continue;
      }
      // Reverted by hand before any verdict: it is out of force, there is nothing to judge.
      if (undone) continue;
      const judgement = latest?.final ? fromRecord(latest) : judgeRevision(revision, store.scope, ctx);
      const evaluated: Evaluated = { ...base, judgement, written: false };
      out.push(evaluated);
      if (!options.apply || judgement.verdict === "pending") continue;
      const record: VerdictRecord = { ...logLine("verdict", revision.rev), ...judgement };
      if (!probation && latest && sameVerdict(latest, record)) {
        evaluated.refused = latest.refused;
        continue;
      }
      const outcome = probation
        ? actOnProbation(store, revision, judgement, ctx)
        : judgement.verdict === "regressed"
          ? revertForVerdict(store, revision, {
              reason: `automatic revert of ${revision.rev}: ${judgement.summary}`,
              verdict: {
                rev: revision.rev,
                scope: store.scope,
                verdict: "regressed",
                evidence: judgement.summary,
              },
            })
          : {};
      Object.assign(record, outcome);
      Object.assign(evaluated, outcome);
      if (store.scope === "session" && outcome.reverted) revertCarriedCopies(ctx, revision, judgement);
      evaluated.written = log.append(
        record,
        (last) => sameVerdict(last, record) && sameOutcome(last, record),
      );
    }
  }
  return out;
}

/** What a recorded verdict did (or a revert by hand since). */
function outcomeOf(record: VerdictRecord, undone: string | undefined): VerdictOutcome {
  const { reverted = undone, refused, promoted, retired, waiting, pinned, alreadyPromoted } = record;
  return { reverted, refused, promoted, retired, waiting, pinned, alreadyPromoted };
}

function sameOutcome(a: VerdictRecord, b: VerdictRecord): boolean {
  return (
    a.reverted === b.reverted &&
    a.refused === b.refused &&
    a.promoted === b.promoted &&
    a.waiting === b.waiting &&
    a.pinned === b.pinned &&
    a.alreadyPromoted?.revision === b.alreadyPromoted?.revision
  );
}

/** A session's regression reverted: its copy carried forward to probation goes too, naming the same evidence. */
function revertCarriedCopies(ctx: HarnessContext, revision: Revision, judgement: Judgement): void {
  const { sessionDir } = ctx;
  if (!sessionDir) return;
  try {
    const probation = HarnessStore.of("probation", sessionProject({ ...ctx, sessionDir }));
    for (const copy of carriedFrom(probation, revision.rev)) {
      revertForVerdict(probation, copy, {
        reason: `automatic revert of ${copy.rev}: its session's revision ${revision.rev} ${judgement.summary}`,
        verdict: { rev: revision.rev, scope: "session", verdict: "regressed", evidence: judgement.summary },
      });
    }
  } catch {
    // The probation log cannot be written now: its own verdict will judge the copy.
  }
}
