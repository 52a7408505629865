// A replay check of one revision (docs/harness.md, "Verify before promotion"): the task(s) of the
// session the edit was learnt from, run twice in scratch copies, without and then with the edit, on the
// same model under the same budget; the result recorded on the revision (its scope's verdicts.jsonl).
// `relm harness verify` runs it in the foreground, a learning session host in the background
// (verify-runner.ts). A replay that could not run is recorded as an error (`verify_error`), never as a
// failed check: it says nothing about the edit.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BudgetLimits } from "../../agent/budget/budget.js";
import { numberOf } from "../../config/options.js";
import {
  type HarnessStore,
  logLine,
  VerdictLog,
  type VerifyErrorRecord,
  type VerifyRecord,
  type VerifyRun,
} from "../store/index.js";
import { type ReplayLimits, type ReplayRequest, type ReplayResult, replayOnce } from "./verify-replay.js";

/** A replay's request, with the store of the revision's scope in place of the scope. */
interface CheckRequest extends Omit<ReplayRequest, "scope"> {
  store: HarnessStore;
  /** Keep the scratch folders (their path is `root` of the result). */
  keep?: boolean;
  /** Told before each replay starts. */
  progress?: (variant: "without" | "with") => void;
}

type CheckResult = { root: string } & (
  | { status: "checked"; record: VerifyRecord; runs: { with: ReplayResult; without: ReplayResult } }
  | { status: "error"; record: VerifyErrorRecord; runs: Partial<Record<"with" | "without", ReplayResult>> }
);

/** Each replay's budget unless flags say otherwise. */
export const VERIFY_DEFAULTS = { maxTurns: "30", maxTime: "15m" };

/**
 * Passed: with the edit the gates passed (without gates: the run ended done) and it took no more turns
 * than without it — or the run without the edit did not get there at all.
 */
function verifyPassed(withEdit: VerifyRun, without: VerifyRun, gated: boolean): boolean {
  const reached = (r: VerifyRun) => (gated ? r.gatesPassed === true : r.outcome === "done");
  if (!reached(withEdit)) return false;
  return !reached(without) || withEdit.turns <= without.turns;
}

function describeRun(r: VerifyRun, gated: boolean): string {
  const gate = gated ? (r.gatesPassed ? "gates passed" : "gates failing") : r.outcome;
  return `${gate} in ${r.turns} turn${r.turns === 1 ? "" : "s"} (${r.tokens.toLocaleString("en-US")} tokens)`;
}

/** The budget flags' values as numbers, for the record. */
function budgetOf(limits: ReplayLimits): BudgetLimits {
  return {
    maxTurns: numberOf(limits, "maxTurns"),
    maxTokens: numberOf(limits, "maxTokens"),
    maxTimeMs: numberOf(limits, "maxTime"),
    maxCost: numberOf(limits, "maxCost"),
  };
}

function withoutExtras(run: ReplayResult): VerifyRun {
  const { workspace: _w, spend: _s, failure: _f, ...rest } = run;
  return rest;
}

/** Runs the check and appends its record (a verify, or a verify_error) to the revision's scope's verdicts. */
export async function runReplayCheck(request: CheckRequest): Promise<CheckResult> {
  const { revision, plan, model } = request;
  const root = mkdtempSync(join(tmpdir(), "relm-verify-"));
  const runs: Partial<Record<"with" | "without", ReplayResult>> = {};
  const log = new VerdictLog(request.store.location, request.real.home);
  try {
    for (const variant of ["without", "with"] as const) {
      request.progress?.(variant);
      const run = await replayOnce({ ...request, scope: request.store.scope }, variant, join(root, variant));
      runs[variant] = run;
      if (run.failure) {
        const record: VerifyErrorRecord = {
          ...logLine("verify_error", revision.rev),
          error: run.failure,
          variant,
          session: plan.session,
          model,
        };
        log.append(record);
        return { status: "error", record, runs, root };
      }
    }
  } finally {
    if (!request.keep) rmSync(root, { recursive: true, force: true });
  }
  const withEdit = runs.with as ReplayResult;
  const without = runs.without as ReplayResult;
  const gated = request.gates.length > 0;
  const passed = verifyPassed(withEdit, without, gated);
  const summary =
    `verify ${passed ? "passed" : "failed"}: with ${revision.rev} ${describeRun(withEdit, gated)}; ` +
    `without it ${describeRun(without, gated)}`;
  const record: VerifyRecord = {
    ...logLine("verify", revision.rev),
    passed,
    summary,
    session: plan.session,
    model,
    tasks: plan.tasks,
    gates: request.gates,
    workspace: without.workspace,
    budget: budgetOf(request.limits),
    with: withoutExtras(withEdit),
    without: withoutExtras(without),
  };
  log.append(record);
  return { status: "checked", record, runs: { with: withEdit, without }, root };
}
