// One replay of `relm harness verify`: a scratch copy of the session's files, a scratch home holding the
// harness with or without the edit, and the recorded task(s) run to their end under a budget. Nothing
// here writes outside the scratch folder; the user's working tree is only ever read.

import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import { type AutonomousOutcome, runAutonomously } from "../../agent/gates/autonomy.js";
import { prepareSession, type SessionFlags } from "../../cli/setup.js";
import type { ResolvedConfig } from "../../config/config.js";
import { makeDirs } from "../../config/dirs.js";
import { titleOf } from "../../host/turn-words.js";
import { JOURNAL_FILE, readJournal, sessionDir } from "../../session/index.js";
import { CheckpointError, materialiseCheckpoint } from "../../workspace/index.js";
import type { HarnessContext, Revision, Scope, VerifyRun } from "../store/index.js";
import { type Variant, writeScratchHarness } from "../verdicts/verify-harness.js";
import type { ReplayPlan } from "../verdicts/verify-plan.js";

interface ReplayRequest {
  real: HarnessContext;
  scope: Scope;
  revision: Revision;
  plan: ReplayPlan;
  gates: string[];
  config: ResolvedConfig;
  model: string;
  /** Budget flags, as `relm run` takes them. */
  limits: Pick<SessionFlags, "maxTurns" | "maxTokens" | "maxCost" | "maxTime">;
  env: NodeJS.ProcessEnv;
  /** The scratch folder of this replay (its files go in work/, its home in home/). */
  dir: string;
}

interface ReplayResult extends VerifyRun {
  workspace: { source: "checkpoint" | "copy"; commit?: string };
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

function outcomeWord(outcome: AutonomousOutcome): string {
  switch (outcome.status) {
    case "done":
      return "done";
    case "budget":
      return `budget exhausted (${outcome.stop.budget})`;
    case "gates_failing":
      return "gates still failing";
    case "stalled":
      return "stalled";
    case "interrupted":
      return "interrupted";
    default:
      return `error: ${outcome.message}`;
  }
}

/** Runs the plan's tasks once, `variant` the edit, and measures the run from its journal. */
export async function replayOnce(request: ReplayRequest, variant: Variant): Promise<ReplayResult> {
  const home = join(request.dir, "home");
  const cwd = join(request.dir, "work");
  makeDirs(home, 0o700);
  const workspace = await scratchWorkspace(request, cwd);
  writeScratchHarness(request.real, request.scope, request.revision, variant, { home, cwd });
  const { config, model } = request;
  const price = config.prices[model] ?? (model === config.model.model ? config.model.price : undefined);
  const scratchConfig: ResolvedConfig = { ...config, home, model: { ...config.model, model, price } };
  // A replay must differ from its twin only by the edit: no learning passes of its own.
  const learn = (scratchConfig as { learn?: { enabled?: boolean } }).learn;
  if (learn) (scratchConfig as { learn?: object }).learn = { ...learn, enabled: false };
  const started = Date.now();
  const { session } = await prepareSession(
    titleOf(request.plan.tasks[0] ?? "replay"),
    { ...request.limits },
    { env: request.env, cwd },
    () => {},
    { config: scratchConfig },
  );
  let outcome = "done";
  try {
    for (const task of request.plan.tasks) {
      const result =
        request.gates.length > 0
          ? await runAutonomously(session, task, { gates: request.gates, unattended: true })
          : await session.run(task);
      outcome = outcomeWord(result);
      if (result.status !== "done") break;
    }
  } finally {
    await session.close();
  }
  const { events } = readJournal(join(sessionDir(home, session.id), JOURNAL_FILE));
  let turns = 0;
  let tokens = 0;
  let cost: number | null = 0;
  let gatesPassed: boolean | null = null;
  for (const e of events) {
    if (e.type === "model_response") {
      turns += 1;
      tokens += e.usage.inputTokens + e.usage.outputTokens;
      cost = cost === null || e.cost === null ? null : cost + e.cost;
    } else if (e.type === "gate_run") gatesPassed = e.passed;
    else if (e.type === "autonomy_end" && outcome === "done") outcome = e.outcome;
  }
  return {
    outcome,
    gatesPassed,
    turns,
    tokens,
    cost,
    elapsedMs: Date.now() - started,
    session: session.id,
    workspace,
  };
}
