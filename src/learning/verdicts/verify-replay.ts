// One replay of a replay check (`relm harness verify`, or the session host's background check): a
// scratch copy of the session's files, a scratch home holding the harness with or without the edit, and
// the recorded task(s) run to their end under a budget. Nothing here writes outside the scratch folder;
// the user's working tree is only ever read. A replay that could not run at all (no endpoint, a refused
// key, the model failing, a kernel or session that did not start) is a failure to check,
// never a result: it comes back as `failure`, and nothing is concluded about the edit.

import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import type { Agent } from "../../agent/core/agent.js";
import type { EventSink } from "../../agent/core/events.js";
import { type AutonomousOutcome, END_WORDS, runAutonomously } from "../../agent/gates/autonomy.js";
import type { ResolvedConfig } from "../../config/config.js";
import { makeDirs } from "../../config/dirs.js";
import type { SessionSpec } from "../../config/options.js";
import { titleOf } from "../../host/turn-words.js";
import { JOURNAL_FILE, readJournal, sessionDir } from "../../session/index.js";
import { CheckpointError, materialiseCheckpoint } from "../../workspace/index.js";
import type { HarnessContext, Revision, Scope, VerifyRun } from "../store/index.js";
import { type Variant, writeScratchHarness } from "./verify-harness.js";
import type { ReplayPlan } from "./verify-plan.js";

/** Budget flags, as `relm run` takes them ("30", "15m", "$2"). */
export type ReplayLimits = Pick<SessionSpec, "maxTurns" | "maxTokens" | "maxCost" | "maxTime">;

/**
 * Starts a session as `relm run` would (cli/setup.ts prepareSession, handed down by whoever runs the
 * check: learning sits below the command line and cannot import it).
 */
export type PrepareReplay = (
  title: string,
  flags: ReplayLimits,
  io: { env: NodeJS.ProcessEnv; cwd: string },
  sink: EventSink,
  overrides: { config: ResolvedConfig },
) => Promise<{ session: Agent }>;

export interface ReplayRequest {
  real: HarnessContext;
  scope: Scope;
  revision: Revision;
  plan: ReplayPlan;
  gates: string[];
  config: ResolvedConfig;
  model: string;
  limits: ReplayLimits;
  env: NodeJS.ProcessEnv;
  prepare: PrepareReplay;
  /** Aborting it interrupts the replay (its outcome is then "interrupted", a failure to check). */
  signal?: AbortSignal;
}

const SPEND_KEYS = ["inputTokens", "outputTokens", "cachedInputTokens", "cacheWriteTokens"] as const;

/** Input and output tokens apart, for the session that pays for a background check (its llm_call). */
type ReplaySpend = Record<(typeof SPEND_KEYS)[number], number>;

export const noSpend = () => Object.fromEntries(SPEND_KEYS.map((k) => [k, 0])) as ReplaySpend;

/** Adds `more`'s tokens to `spend`. */
export function addSpendTo(spend: ReplaySpend, more: ReplaySpend): void {
  for (const k of SPEND_KEYS) spend[k] += more[k];
}

export interface ReplayResult extends VerifyRun {
  workspace: { source: "checkpoint" | "copy"; commit?: string };
  spend: ReplaySpend;
  /** Set when the replay could not run: nothing about the edit can be read from it. */
  failure?: string;
}

/** The session's files as they were when it started: its first checkpoint, else a copy of its folder now. */
async function scratchWorkspace(request: ReplayRequest, dest: string): Promise<ReplayResult["workspace"]> {
  const { plan } = request;
  if (plan.checkpoint) {
    try {
      await materialiseCheckpoint({ home: request.real.home, cwd: plan.cwd, commit: plan.checkpoint, dest });
      return { source: "checkpoint", commit: plan.checkpoint };
    } catch (error) {
      if (!(error instanceof CheckpointError)) throw error;
    }
  }
  makeDirs(dest);
  // The user's own repository is never part of a checkpoint; a copy leaves it out too.
  if (existsSync(plan.cwd)) {
    cpSync(plan.cwd, dest, { recursive: true, filter: (src) => !src.endsWith("/.git") });
  }
  return { source: "copy" };
}

/** The journal's word for how a run ended (autonomy_end's), with the budget or error it names. */
function outcomeWord(outcome: AutonomousOutcome): string {
  if (outcome.status === "budget") return `budget exhausted (${outcome.stop.budget})`;
  if (outcome.status === "error") return `error: ${outcome.message}`;
  return END_WORDS[outcome.status];
}

/**
 * Why a replay that ended this way says nothing about the edit, if it does not. An error stopped it: the
 * endpoint refused or failed (the rest of the run is missing), the model never answered, a kernel did not
 * start — except an answer the model itself never finished (`gaveUp`: cut off at its output limit again
 * and again), which is how that run went. An interrupted replay was not finished either.
 */
function replayFailure(outcome: AutonomousOutcome, turns: number, gaveUp: boolean): string | undefined {
  if (outcome.status === "interrupted") return `the replay was interrupted (${outcome.reason})`;
  if (outcome.status !== "error" || gaveUp) return undefined;
  if (turns === 0) return `the replay failed before the model's first answer: ${outcome.message}`;
  const what = outcome.error ? "the model endpoint failed" : "the replay stopped on an error";
  return `${what} after ${turns} turn${turns === 1 ? "" : "s"}: ${outcome.message}`;
}

const failed = (failure: string, elapsedMs: number): ReplayResult => ({
  outcome: "not run",
  gatesPassed: null,
  turns: 0,
  tokens: 0,
  cost: null,
  elapsedMs,
  session: "",
  workspace: { source: "copy" },
  spend: noSpend(),
  failure,
});

/** Runs the plan's tasks once, `variant` the edit, in `dir`, and measures the run from its journal. */
export async function replayOnce(
  request: ReplayRequest,
  variant: Variant,
  dir: string,
): Promise<ReplayResult> {
  const home = join(dir, "home");
  const cwd = join(dir, "work");
  makeDirs(home, 0o700);
  const workspace = await scratchWorkspace(request, cwd);
  writeScratchHarness(request.real, request.scope, request.revision, variant, { home, cwd });
  const { config, model } = request;
  const price = config.prices[model] ?? (model === config.model.model ? config.model.price : undefined);
  const scratchConfig: ResolvedConfig = {
    ...config,
    home,
    model: { ...config.model, model, price },
    // A replay must differ from its twin only by the edit: no learning passes of its own.
    learn: { ...config.learn, enabled: false },
  };
  const started = Date.now();
  let session: Agent;
  try {
    ({ session } = await request.prepare(
      titleOf(request.plan.tasks[0] ?? "replay"),
      { ...request.limits },
      { env: request.env, cwd },
      () => {},
      { config: scratchConfig },
    ));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return failed(`the replay session could not start: ${message}`, Date.now() - started);
  }
  let outcome = "done";
  let last: AutonomousOutcome | undefined;
  const cancel = () => session.cancel("the replay check was stopped");
  request.signal?.addEventListener("abort", cancel, { once: true });
  try {
    for (const task of request.plan.tasks) {
      if (request.signal?.aborted) {
        last = { status: "interrupted", reason: "the replay check was stopped" };
        break;
      }
      last =
        request.gates.length > 0
          ? await runAutonomously(session, task, { gates: request.gates, unattended: true })
          : await session.run(task);
      outcome = outcomeWord(last);
      if (last.status !== "done") break;
    }
  } catch (error) {
    last = { status: "error", message: error instanceof Error ? error.message : String(error) };
  } finally {
    request.signal?.removeEventListener("abort", cancel);
    await session.close();
  }
  const { events } = readJournal(join(sessionDir(home, session.id), JOURNAL_FILE));
  let turns = 0;
  let cost: number | null = 0;
  let gatesPassed: boolean | null = null;
  let gaveUp = false;
  const spend = noSpend();
  for (const e of events) {
    if (e.type === "model_response") {
      turns += 1;
      addSpendTo(spend, e.usage);
      cost = cost === null || e.cost === null ? null : cost + e.cost;
    } else if (e.type === "gate_run") gatesPassed = e.passed;
    else if (e.type === "truncated" && e.action === "gave_up") gaveUp = true;
    else if (e.type === "autonomy_end" && outcome === "done") outcome = e.outcome;
  }
  const failure = last ? replayFailure(last, turns, gaveUp) : undefined;
  return {
    outcome,
    gatesPassed,
    turns,
    tokens: spend.inputTokens + spend.outputTokens,
    cost,
    elapsedMs: Date.now() - started,
    session: session.id,
    workspace,
    spend,
    ...(failure ? { failure } : {}),
  };
}
