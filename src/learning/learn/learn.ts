// Learning on the fly: a running session reviews its own recent work with the refine machinery and keeps
// checked lessons in its session scope (docs/harness.md, "Learning on the fly"). learn-policy.ts decides
// when a pass is due and whether the budgets cover it; this runs it, applies it and journals it.

import type { HookedRoot } from "../../agent/hooks.js";
import type { LearnSettings } from "../../config/learn-config.js";
import type { LearnStatus } from "../../host/protocol.js";
import type { JournalEvent, LearnedEdit } from "../../session/types.js";
import { teachTree } from "../attach/teach.js";
import { applyRefinement, proposeForSession, type Refinement } from "../refine/refine.js";
import { rootContext } from "../store/index.js";
import {
  addEstimates,
  addSpend,
  budgetRefusal,
  dueByGate,
  dueByTurns,
  estimatePass,
  FIRST_PASS_MS,
  GateFailureStreak,
  type GateOutcome,
  LEARN_OUTPUT_TOKENS,
  type LearnTrigger,
  type PassEstimate,
  type Spend,
} from "./learn-policy.js";

export type { LearnStatus };

const FOCUS: Record<Exclude<LearnTrigger, "gate_failure">, string> = {
  compaction:
    "The conversation is being compacted now; the agent's prompt is rebuilt with the harness as it is after this review.",
  every_turns: "A periodic review of the agent's recent work.",
};

/** The learning of one session tree (its root agent); off unless --learn, /learn on or learn.enabled. */
export class SessionLearning {
  private on: boolean;
  private passes = 0;
  private appliedEdits = 0;
  private learned: Spend = { tokens: 0, cost: 0 };
  /** The last journal event a pass showed the refine model; the next pass starts after it. */
  private lastReviewed = 0;
  private lastPassTurn = 0;
  private slowestMs = 0;
  private running = false;
  private readonly streak = new GateFailureStreak();

  readonly settings: LearnSettings;
  private readonly refineModel: string | undefined;

  /**
   * Config's learn section, on when --learn, learn.enabled or (resumed) the journal's last /learn says
   * so; `events`, a resumed session's journal: earlier passes, spend and the last /learn on|off are kept.
   */
  constructor(
    private readonly host: HookedRoot,
    events: readonly JournalEvent[],
    options: LearnOptions,
  ) {
    this.settings = options.settings;
    this.refineModel = options.refineModel;
    const on = options.on || options.settings.enabled;
    let mode: boolean | undefined;
    let turn = 0;
    for (const e of events) {
      if (e.type === "model_request") turn = e.turn;
      else if (e.type === "learn_mode") mode = e.on;
      else if (e.type === "learn") {
        this.passes = Math.max(this.passes, e.pass);
        this.appliedEdits += e.applied.length;
        this.learned = addSpend(this.learned, e);
        if (e.reviewed && e.outcome !== "failed")
          this.lastReviewed = Math.max(this.lastReviewed, e.reviewed.to);
        this.slowestMs = Math.max(this.slowestMs, e.outcome === "skipped" ? 0 : e.durationMs);
        this.lastPassTurn = turn;
      }
    }
    this.on = on || mode === true;
    if (this.on && mode !== true) host.record({ type: "learn_mode", on: true });
  }

  get enabled(): boolean {
    return this.on;
  }

  status(): LearnStatus {
    return {
      learn: this.on ? this.settings : null,
      passes: this.passes,
      applied: this.appliedEdits,
      // Unpriced from the start when the refine model has no prices, as a session's cost is (host/info.ts).
      spent: {
        tokens: this.learned.tokens,
        cost:
          this.learned.cost === 0 && this.host.clientFor(this.refineModel).price === null
            ? null
            : this.learned.cost,
      },
    };
  }

  /** `/learn on|off`: journaled, so a resumed session keeps it. */
  setOn(on: boolean): LearnStatus {
    if (on !== this.on) {
      this.on = on;
      // Counting by turns starts afresh: turning it on is not a reason to run a pass at once.
      this.lastPassTurn = this.host.turns;
      this.host.record({ type: "learn_mode", on });
    }
    return this.status();
  }

  /** Before each model call of the root: a pass every `every_turns` model calls. */
  async beforeModelCall(): Promise<void> {
    if (this.on && dueByTurns(this.settings.everyTurns, this.host.turns, this.lastPassTurn))
      await this.pass("every_turns", FOCUS.every_turns);
  }

  /** A compaction is about to rebuild the prompt: a pass now lands in the rebuilt prompt. */
  async atCompaction(): Promise<void> {
    if (this.on && this.settings.atCompaction) await this.pass("compaction", FOCUS.compaction);
  }

  /** After each gates run of an autonomous run (`event`: its gate_run journal event). */
  async afterGateRun(run: { results: readonly GateOutcome[] }, event?: number): Promise<void> {
    const streak = this.streak.record(run, event);
    if (!this.on || !dueByGate(this.settings.onGateFailure, streak)) return;
    const where = streak.events.length > 0 ? ` (events ${streak.events.join(", ")})` : "";
    const gate = `the gate \`${streak.command}\``;
    await this.pass(
      "gate_failure",
      `${gate} failed ${streak.count} times in a row with the same failure${where}. Look first for a lesson that would have avoided it.`,
      `${gate} stops failing the way it did${where}`,
    );
  }

  /** One pass: review, check, apply to the session scope, journal. Never throws. */
  private async pass(trigger: LearnTrigger, focus: string, defaultHypothesis?: string): Promise<void> {
    if (this.running) return;
    this.running = true;
    const pass = ++this.passes;
    const host = this.host;
    const started = Date.now();
    let estimate: PassEstimate | undefined;
    let model = "";
    try {
      const client = host.clientFor(this.settings.model ?? this.refineModel);
      model = client.model;
      const ctx = rootContext(host);
      const ref = await proposeForSession(host, {
        journalPath: host.journal.path,
        ctx,
        scope: "session",
        client,
        signal: host.signal,
        after: this.lastReviewed,
        focus,
        maxOutputTokens: LEARN_OUTPUT_TOKENS,
        preflight: (request, call) => {
          // The relevance check is the pass's second call: its time is in the pass's (the slowest whole
          // pass), and learning's cap covers both calls (budgetRefusal's `earlier`).
          const proposal = call === "relevance" ? estimate : undefined;
          const next = estimatePass(request, client.price, proposal ? 0 : this.slowestMs || FIRST_PASS_MS);
          estimate = proposal ? addEstimates(proposal, next) : next;
          return (
            host.budget.check()?.message ??
            budgetRefusal(next, {
              limits: host.budget.limits,
              spent: host.budget.spent(),
              learned: this.learned,
              budget: this.settings.budget,
              ...(proposal ? { earlier: proposal } : {}),
            })
          );
        },
      });
      this.finish(pass, trigger, ref, started, estimate, defaultHypothesis);
    } catch (error) {
      host.record({
        ...emptyPass(pass, trigger, model || "?", Date.now() - started, estimate),
        outcome: "failed",
        reason: error instanceof Error ? error.message : String(error),
      });
    } finally {
      this.lastPassTurn = host.turns;
      this.running = false;
    }
  }

  private finish(
    pass: number,
    trigger: LearnTrigger,
    ref: Refinement,
    started: number,
    estimate: PassEstimate | undefined,
    defaultHypothesis: string | undefined,
  ): void {
    const tokens = ref.usage ? ref.usage.inputTokens + ref.usage.outputTokens : 0;
    const cost = ref.usage ? ref.cost : 0;
    this.learned = addSpend(this.learned, { tokens, cost });
    const base = {
      ...emptyPass(pass, trigger, ref.model, Date.now() - started, estimate),
      tokens,
      cost,
    };
    // Nothing new to review, or a budget said no: the model was not asked.
    if (ref.skipped !== undefined || ref.trajectory.to === 0) {
      this.host.record({ ...base, outcome: "skipped", reason: ref.skipped ?? ref.error });
      return;
    }
    // The relevance check could not be made: nothing unchecked is applied, and the same events are
    // reviewed again by the next pass (lastReviewed stays where it was).
    if (ref.held !== undefined) {
      const rejected = ref.rejected.map((r) => ({
        index: r.index,
        reason: r.reason,
        edit: clipJson(r.edit),
      }));
      this.host.record({ ...base, outcome: "skipped", reason: ref.held, rejected });
      return;
    }
    this.slowestMs = Math.max(this.slowestMs, base.durationMs);
    const reviewed = { ...ref.trajectory };
    if (ref.error !== undefined) {
      this.host.record({ ...base, reviewed, outcome: "failed", reason: ref.error });
      return;
    }
    this.lastReviewed = Math.max(this.lastReviewed, ref.trajectory.to);
    const rejected = ref.rejected.map((r) => ({
      index: r.index,
      reason: r.reason,
      edit: clipJson(r.edit),
      ...(r.capped ? { capped: true as const } : {}),
    }));
    const proposed = ref.accepted.length + ref.rejected.length;
    // Cut at the answer's cap: what was not read is said so beside the edits that were.
    if (ref.cut) rejected.push({ index: -1, reason: ref.cut, edit: "" });
    // Every applied edit says what it should change: the model's words, else the trigger's.
    const accepted = ref.accepted.map((a) => {
      const hypothesis =
        a.intent.hypothesis ?? defaultHypothesis ?? a.intent.reason ?? "the cited mistake is not repeated";
      return { ...a, intent: { ...a.intent, hypothesis }, edit: { ...a.edit, hypothesis } };
    });
    if (accepted.length === 0) {
      this.host.record({ ...base, reviewed, proposed, rejected, outcome: "nothing_applied" });
      return;
    }
    const ctx = rootContext(this.host);
    const { revision, dropped } = applyRefinement({ ...ref, accepted }, ctx, {
      author: `learn ${ref.model}`,
      reason: `learning pass ${pass} (${trigger}) of session ${ref.session}`,
    });
    for (const d of dropped)
      rejected.push({ index: -1, reason: `not applied: ${d.reason}`, edit: clipJson(d.intent) });
    const applied: LearnedEdit[] = revision
      ? revision.edits.map((e) => ({
          op: e.op,
          id: e.id,
          kind: (e.after ?? e.before)?.kind ?? "memory",
          content: ((e.after ?? e.before)?.content ?? "").slice(0, 300),
          hypothesis: e.hypothesis ?? "",
          evidence: e.evidence ?? [],
        }))
      : [];
    this.appliedEdits += applied.length;
    this.host.record({
      ...base,
      reviewed,
      proposed,
      applied,
      rejected,
      outcome: revision ? "applied" : "nothing_applied",
      ...(revision ? { revision: revision.rev } : {}),
    });
    // Every running agent of the tree reads it before its next model request.
    if (revision) teachTree(this.host.tree, revision, "session", ctx);
  }
}

function emptyPass(
  pass: number,
  trigger: LearnTrigger,
  model: string,
  durationMs: number,
  estimate: PassEstimate | undefined,
) {
  return {
    type: "learn" as const,
    pass,
    trigger,
    model,
    scope: "session",
    reviewed: null,
    proposed: 0,
    applied: [] as LearnedEdit[],
    rejected: [] as { index: number; reason: string; edit: string }[],
    ...(estimate ? { estimate } : {}),
    tokens: 0,
    cost: 0 as number | null,
    durationMs,
  };
}

function clipJson(value: unknown): string {
  const text = (value && typeof value === "object" ? JSON.stringify(value) : String(value)) ?? "";
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

/** Config's learn section, whether --learn turned it on, and config's refineModel. */
export interface LearnOptions {
  settings: LearnSettings;
  on: boolean;
  refineModel?: string;
}
