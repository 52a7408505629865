// The background replay check (issue 21, item 3): in a learning session's host, when a verdict finds an
// edit improved and promoting it would need a passing `relm harness verify` that does not exist yet (it
// was learnt in an autonomous run), the check is run here, in this process, beside the session's turns
// (never blocking them), one at a time, bounded by a share of what is left of the session's budgets. Its
// record goes to the revision's verdicts like a person's verify; the session journals the spend (an
// llm_call) and the result (`harness_verify`, one notice line), or why it was skipped.

import { join } from "node:path";
import type { Budget } from "../../agent/budget/budget.js";
import type { HookedRoot } from "../../agent/hooks.js";
import type { ResolvedConfig } from "../../config/config.js";
import { formatDuration } from "../../config/duration.js";
import {
  JOURNAL_FILE,
  readJournal,
  type SpendRecord,
  sessionDir,
  spendFromResponses,
} from "../../session/index.js";
import { HarnessStore, type Revision, rootContext, type Scope, VerdictLog } from "../store/index.js";
import type { Evaluated } from "./verdicts.js";
import { runReplayCheck, VERIFY_DEFAULTS } from "./verify-check.js";
import { provenanceOf, type ReplayPlan, ranAutonomously, replayPlan } from "./verify-plan.js";
import { addSpendTo, noSpend, type PrepareReplay, type ReplayLimits } from "./verify-replay.js";

/** What the runner needs of the session it runs in. */
type VerifyHost = Pick<HookedRoot, "dir" | "cwd" | "home" | "budget" | "record">;

/** How the composition root (cli/setup.ts) lets learning run replays: it alone can start sessions. */
export interface BackgroundVerifySettings {
  prepare: PrepareReplay;
  config: ResolvedConfig;
  env: NodeJS.ProcessEnv;
}

interface Candidate {
  scope: Scope;
  revision: Revision;
  /** The session it was learnt from, whose task(s) are replayed. */
  from: string;
}

/** What a replay check may spend, or why none can run now. */
type Allowance = { limits: ReplayLimits; note: string } | { skip: string };

/** What the replayed task(s) cost when the session ran them: a check runs them twice. */
type TaskCost = Pick<SpendRecord, "tokens" | "cost" | "elapsedMs">;

const SHARE_FLAG = "--learn-verify-share (learn.verify_share)";

/** The spend of the session a check would replay (its root agent's model calls and its duration). */
function taskCost(home: string, session: string): TaskCost {
  const { header, events } = readJournal(join(sessionDir(home, session), JOURNAL_FILE));
  return spendFromResponses(header, events);
}

/**
 * The budget of each of a check's two replays: `share` of what is left of each session limit that is
 * set, halved. Skipped, with the reason, when the share cannot cover twice what the task cost before.
 * A session without limits gives the replays verify's own defaults (30 turns, 15 minutes each).
 */
export function allowanceFor(budget: Budget, share: number, task: TaskCost): Allowance {
  if (share <= 0) return { skip: `the share of the budget for replay checks is 0 (${SHARE_FLAG})` };
  const { limits } = budget;
  const spent = budget.spent();
  const out: ReplayLimits = { maxTurns: VERIFY_DEFAULTS.maxTurns, maxTime: VERIFY_DEFAULTS.maxTime };
  const notes: string[] = [];
  const of = `${share} of what is left of`;
  if (limits.maxTokens !== undefined) {
    const allowed = Math.floor(share * Math.max(0, limits.maxTokens - spent.tokens));
    const needed = 2 * task.tokens;
    if (allowed < needed || allowed < 2) {
      return {
        skip: `a replay check needs about ${needed.toLocaleString("en-US")} tokens (twice the ${task.tokens.toLocaleString("en-US")} its task took), more than the ${allowed.toLocaleString("en-US")} that ${of} --max-tokens allows`,
      };
    }
    out.maxTokens = String(Math.floor(allowed / 2));
    notes.push(`${allowed.toLocaleString("en-US")} tokens`);
  }
  if (limits.maxCost !== undefined) {
    if (task.cost === null)
      return { skip: "the replayed task's cost is unknown, so --max-cost could not be kept" };
    const allowed = share * Math.max(0, limits.maxCost - (spent.cost ?? limits.maxCost));
    const needed = 2 * task.cost;
    if (allowed <= 0 || allowed < needed) {
      return {
        skip: `a replay check needs about $${needed.toFixed(4)} (twice what its task cost), more than the $${allowed.toFixed(4)} that ${of} --max-cost allows`,
      };
    }
    out.maxCost = String(allowed / 2);
    notes.push(`$${allowed.toFixed(4)}`);
  }
  if (limits.maxTimeMs !== undefined) {
    const allowed = share * Math.max(0, limits.maxTimeMs - spent.elapsedMs);
    const needed = 2 * task.elapsedMs;
    if (allowed < needed || allowed < 2000) {
      return {
        skip: `a replay check needs about ${formatDuration(needed)} (twice its task's), more than the ${formatDuration(allowed)} that ${of} --max-time allows`,
      };
    }
    const each = Math.min(15 * 60_000, Math.floor(allowed / 2));
    out.maxTime = `${Math.floor(each / 1000)}s`;
    notes.push(formatDuration(allowed));
  }
  return { limits: out, note: notes.length > 0 ? `up to ${notes.join(", ")}` : "no session limit" };
}

/** Runs the replay checks improved edits need, one at a time, while the session goes on. */
export class VerifyRunner {
  /** Revisions considered in this process (checked, skipped or failed): each at most once. */
  private readonly seen = new Set<string>();
  private readonly queue: Candidate[] = [];
  private running: Promise<void> | undefined;
  private closed = false;
  private readonly stop = new AbortController();

  constructor(
    private readonly host: VerifyHost,
    private readonly settings: BackgroundVerifySettings,
    private readonly share: () => number,
  ) {}

  /** After a judgement: queues a check for each improved edit whose promotion waits for one. */
  consider(results: readonly Evaluated[]): void {
    if (this.closed) return;
    for (const r of results) {
      const key = `${r.scope}:${r.revision.rev}`;
      if (r.judgement.verdict !== "improved" || r.reverted || this.seen.has(key)) continue;
      const candidate = this.needsCheck(r.scope, r.revision);
      if (!candidate) continue;
      this.seen.add(key);
      this.queue.push(candidate);
    }
    if (!this.running && this.queue.length > 0) this.running = this.drain();
  }

  /**
   * The session is closing: a check under way finishes (its budget bounds it) or, with `stop`, is
   * interrupted; those still queued are dropped, each journaled as skipped.
   */
  async close(stop: boolean): Promise<void> {
    this.closed = true;
    if (stop) this.stop.abort();
    for (const c of this.queue.splice(0)) this.skipped(c, "the session ended before the check could start");
    await this.running;
  }

  /** The check is needed: learnt in an autonomous run, whose journal is here, and not checked yet. */
  private needsCheck(scope: Scope, revision: Revision): Candidate | undefined {
    const from = provenanceOf(revision);
    if (!from || revision.revert) return undefined;
    if (!ranAutonomously(this.host.home, from)) return undefined;
    const store = HarnessStore.of(scope, rootContext(this.host));
    if (new VerdictLog(store.location, this.host.home).latest(revision.rev, "verify")) return undefined;
    return { scope, revision, from };
  }

  private async drain(): Promise<void> {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      try {
        await this.check(next);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.journal(next, "error", `the replay check failed: ${reason}`, 0, null, 0);
      }
    }
    this.running = undefined;
  }

  private async check(c: Candidate): Promise<void> {
    const started = Date.now();
    // The root's context reaches every scope, the session's included.
    const store = HarnessStore.of(c.scope, rootContext(this.host));
    let plan: ReplayPlan;
    try {
      plan = replayPlan(this.host.home, c.from, c.revision);
    } catch (error) {
      return this.skipped(c, `session ${c.from} cannot be read: ${(error as Error).message}`);
    }
    if (plan.tasks.length === 0) return this.skipped(c, `session ${c.from} has no task to replay`);
    const allowance = allowanceFor(this.host.budget, this.share(), taskCost(this.host.home, c.from));
    if ("skip" in allowance) return this.skipped(c, allowance.skip);
    const result = await runReplayCheck({
      real: rootContext(this.host),
      store,
      revision: c.revision,
      plan,
      gates: plan.gates,
      model: plan.model,
      config: this.settings.config,
      limits: allowance.limits,
      env: this.settings.env,
      prepare: this.settings.prepare,
      signal: this.stop.signal,
    });
    // What the replays spent is this session's: counted against its budgets and journaled as a call.
    const runs = [result.runs.without, result.runs.with].flatMap((r) => (r ? [r] : []));
    const usage = { ...noSpend(), estimated: false };
    let cost: number | null = 0;
    let turns = 0;
    for (const r of runs) {
      addSpendTo(usage, r.spend);
      cost = cost === null || r.cost === null ? null : cost + r.cost;
      turns += r.turns;
    }
    const tokens = usage.inputTokens + usage.outputTokens;
    const durationMs = Date.now() - started;
    if (turns > 0) {
      this.host.budget.addSpend(tokens, cost);
      this.host.record({ type: "llm_call", model: plan.model, prompts: turns, usage, cost, durationMs });
    }
    if (result.status === "error") this.journal(c, "error", result.record.error, tokens, cost, durationMs);
    else {
      const { passed, summary } = result.record;
      this.journal(c, passed ? "passed" : "failed", summary, tokens, cost, durationMs);
    }
  }

  private skipped(c: Candidate, reason: string): void {
    this.journal(c, "skipped", reason, 0, 0, 0);
  }

  private journal(
    c: Candidate,
    outcome: "passed" | "failed" | "error" | "skipped",
    summary: string,
    tokens: number,
    cost: number | null,
    durationMs: number,
  ): void {
    this.host.record({
      type: "harness_verify",
      scope: c.scope,
      rev: c.revision.rev,
      outcome,
      summary,
      tokens,
      cost,
      durationMs,
    });
  }
}
