// What a verdict does to lessons on probation, without a command (docs/harness.md, "Probation"):
// regressed → reverted; improved → promoted to the project scope (after a passing replay check when it was
// learnt in an autonomous run, and not while the project scope is locked); neutral once final → retired.
// A lesson a person pinned is judged and left as it is.

import { sessionDir } from "../../session/index.js";
import {
  type Entry,
  type HarnessContext,
  HarnessStore,
  type Judgement,
  type Revision,
  scopeLocation,
  VerdictLog,
  type VerdictNote,
  type VerdictOutcome,
  type VerifyRecord,
} from "../store/index.js";
import { revertForVerdict, VERDICT_AUTHOR } from "../verdicts/verdict-revert.js";
import { provenanceOf, ranAutonomously } from "../verdicts/verify-plan.js";
import { alreadyIn, promoteEntries } from "./promote.js";

/** The entries of `revision` still on probation as it left them (none once promoted, rejected, reverted). */
export function stillOnProbation(store: HarnessStore, revision: Revision): Entry[] {
  const state = store.state();
  return revision.edits.flatMap((e) => {
    const current = state.get(e.id);
    return current && current.rev === revision.rev ? [current.entry] : [];
  });
}

/**
 * Whether promoting `revision` needs a passing `relm harness verify` (it was learnt in an autonomous
 * run), and the newest replay check that passed: of the probation revision, else of the session-scope
 * revision it carries forward.
 */
function replayCheck(
  store: HarnessStore,
  revision: Revision,
  home: string,
): { needed: boolean; session?: string; passed?: VerifyRecord } {
  const session = provenanceOf(revision);
  const own = new VerdictLog(store.location, home).latest(revision.rev, "verify");
  let passed = own?.passed ? own : undefined;
  const carried = revision.carried;
  if (!passed && carried) {
    const where = scopeLocation("session", {
      cwd: store.location.dir,
      home,
      sessionDir: sessionDir(home, carried.session),
    });
    const theirs = new VerdictLog(where, home).latest(carried.rev, "verify");
    if (theirs?.passed) passed = theirs;
  }
  const needed = session !== undefined && ranAutonomously(home, session);
  return { needed, session, ...(passed ? { passed } : {}) };
}

export function actOnProbation(
  store: HarnessStore,
  revision: Revision,
  judgement: Judgement,
  ctx: HarnessContext,
): VerdictOutcome {
  const entries = stillOnProbation(store, revision);
  if (judgement.verdict === "pending") return {};
  if (entries.length === 0) {
    // Off probation since this evaluation began: an improved lesson may have been promoted by another
    // session or a person (promotions racing); recorded as such, not as a verdict that did nothing.
    if (judgement.verdict !== "improved") return {};
    const ids = revision.edits.flatMap((e) => (e.op === "remove" ? [] : [e.id]));
    const already = alreadyIn(HarnessStore.of("project", ctx), ids);
    return already ? { alreadyPromoted: already } : {};
  }
  const pins = new VerdictLog(store.location, ctx.home).pinnedEntries();
  if (entries.some((e) => pins.has(e.id))) return { pinned: true };
  const session = provenanceOf(revision);
  const note = {
    rev: revision.rev,
    scope: "probation" as const,
    ...(session ? { session } : {}),
    evidence: judgement.summary,
  };
  switch (judgement.verdict) {
    case "regressed":
      return revertForVerdict(store, revision, {
        reason: `automatic revert of ${revision.rev}: ${judgement.summary}`,
        verdict: { ...note, verdict: "regressed" },
      });
    case "neutral": {
      if (!judgement.final) return {};
      const n = judgement.after.units.length;
      const out = revertForVerdict(store, revision, {
        reason: `retired ${revision.rev}: not shown to help in ${n} ${judgement.signal === "gates" ? "attempts" : "cells"}: ${judgement.summary}`,
        verdict: { ...note, verdict: "neutral" },
      });
      return out.reverted ? { ...out, retired: true } : out;
    }
    case "improved":
      return promote(store, revision, entries, judgement, ctx, { ...note, verdict: "improved" });
  }
}

function promote(
  store: HarnessStore,
  revision: Revision,
  entries: readonly Entry[],
  judgement: Judgement,
  ctx: HarnessContext,
  note: VerdictNote,
): VerdictOutcome {
  const check = replayCheck(store, revision, ctx.home);
  if (check.needed && !check.passed) {
    return {
      waiting: `learnt in an autonomous run (session ${check.session}), so it needs a passing replay check first: relm harness verify ${revision.rev} --scope probation`,
    };
  }
  if (scopeLocation("project", ctx).locked) {
    return {
      waiting:
        "the project scope cannot be written in this session (its sandbox started before the project had .relm/); the next session or `relm harness stats` promotes it",
    };
  }
  const verify = check.passed ? { verify: { time: check.passed.t, summary: check.passed.summary } } : {};
  const promoted = promoteEntries({
    ctx,
    source: store,
    revision,
    entries,
    to: "project",
    author: VERDICT_AUTHOR,
    reason: `promote ${entries.map((e) => e.id).join(", ")} from probation: ${judgement.summary.split(":")[0]}`,
    evidence: revision.evidence,
    verdict: { ...note, ...verify },
  });
  if (promoted.written) return { promoted: promoted.written.rev };
  if (promoted.already) return { alreadyPromoted: promoted.already };
  return { waiting: `not promoted: ${promoted.refused}` };
}
