import type { Budget } from "../../agent/budget.js";
import { oneLine } from "../../config/text.js";
import type { ModelClient, ModelRequest, Usage } from "../../llm/types.js";
import { readJournal } from "../../session/index.js";
import type { JournalBody, JournalEvent } from "../../session/types.js";
import { carryForward } from "../probation/carry.js";
import {
  applyEdits,
  type CommitResult,
  checkIntent,
  type Edit,
  formatEdits,
  type HarnessContext,
  HarnessStore,
  type Intent,
  intentToEdit,
  openStores,
  type Revision,
  type Scope,
  scopeLocation,
} from "../store/index.js";
import { callRefineModel } from "./refine-call.js";
import { parseEditList, REFINE_SYSTEM, refinePrompt } from "./refine-prompt.js";
import { readProposals } from "./refine-proposals.js";
import { checkQuotes } from "./refine-quotes.js";
import { collectTrajectory, type Trajectory } from "./refine-trajectory.js";

export interface RefineOptions {
  /** The journal of the session whose work is reviewed. */
  journalPath: string;
  /** Where the harness is; `sessionDir` is the root session's folder (the session scope). */
  ctx: HarnessContext;
  scope: Scope;
  client: ModelClient;
  signal?: AbortSignal;
  maxChars?: number;
  /** Review the events after this one (default: after the last applied refinement of the session). */
  after?: number;
  /** What to look at first (a learning pass's trigger), told to the refine model before the trajectory. */
  focus?: string;
  /** Caps the refine model's answer, so its cost can be bounded before the call. */
  maxOutputTokens?: number;
  /** Sees the exact request before it is sent; a reason returned skips the call (a budget would not cover it). */
  preflight?: (request: ModelRequest) => string | undefined;
  /**
   * The budgets of the session the refinement runs in: the call is admitted like every other model call
   * (answer capped by what is left of --max-tokens, aborted at --max-time); one they refuse is skipped.
   */
  budget?: Budget;
  /** Context-window overrides (config.json contextWindows), for the answer's cap beside the prompt. */
  windows?: Record<string, number>;
  /** Books the call's spend before the tokens it held in the budget are given back. */
  onSpend?: (usage: Usage, cost: number | null, durationMs: number) => void;
}

export interface Rejected {
  index: number;
  edit: unknown;
  reason: string;
}

/** A refinement proposed and checked, not yet applied. */
export interface Refinement {
  session: string;
  scope: Scope;
  model: string;
  /** The scope's head when the edits were checked; applying compares it with the log. */
  parent: string | null;
  trajectory: Pick<Trajectory, "from" | "to" | "omitted">;
  accepted: { index: number; intent: Intent; edit: Edit }[];
  rejected: Rejected[];
  /** The accepted edits as a reviewable diff. */
  diff: string;
  /** Why nothing could be proposed (the model failed or did not answer with edits). */
  error?: string;
  /** Set when there was nothing to review (no events since the last refinement). */
  note?: string;
  /** Why the model was not called although there was something to review (`preflight` said so). */
  skipped?: string;
  usage?: Usage;
  cost: number | null;
}

/** The last journal event of `session` an applied refinement reviewed, in any scope; 0 when none. */
export function lastRefined(ctx: HarnessContext, session: string): number {
  let last = 0;
  for (const store of openStores(ctx)) {
    for (const r of store.revisions()) {
      if (r.trajectory?.session === session) last = Math.max(last, r.trajectory.to);
    }
  }
  return last;
}

/**
 * Evidence as journal event numbers of this session. A number that does not exist, lies before the
 * reviewed window or was left out of what the model saw is the reason the edit is rejected.
 */
export function checkEvidence(
  raw: unknown,
  session: string,
  events: readonly JournalEvent[],
  trajectory: Trajectory,
): { events: number[] } | { reason: string } {
  if (!Array.isArray(raw) || raw.length === 0) return { reason: "cites no evidence (journal event numbers)" };
  const last = events.at(-1)?.n ?? 0;
  const out: number[] = [];
  for (const item of raw) {
    let n: number | undefined;
    if (typeof item === "number") n = item;
    else if (typeof item === "string") {
      const m = /^(?:([0-9a-z]+):)?#?(\d+)$/.exec(item.trim());
      if (m?.[1] && m[1] !== session)
        return { reason: `cites event ${m[2]} of session ${m[1]}, not of ${session}` };
      if (m) n = Number(m[2]);
    }
    if (n === undefined || !Number.isInteger(n))
      return { reason: `evidence ${JSON.stringify(item)} is not an event number` };
    if (n < 1 || n > last) {
      return { reason: `cites event ${n}, which does not exist in session ${session} (events 1–${last})` };
    }
    if (n < trajectory.from) {
      return {
        reason: `cites event ${n}, from before the reviewed events ${trajectory.from}–${trajectory.to}`,
      };
    }
    if (!trajectory.shown.has(n))
      return { reason: `cites event ${n}, which was not in the trajectory shown` };
    out.push(n);
  }
  return { events: [...new Set(out)].sort((a, b) => a - b) };
}

/**
 * Reviews a session's events since its last refinement with the refine model and checks every edit it
 * proposes mechanically. Nothing is written: `applyRefinement` does that once a person (or --apply) agrees.
 */
export async function proposeRefinement(options: RefineOptions): Promise<Refinement> {
  const { ctx, scope, client } = options;
  const journal = readJournal(options.journalPath);
  const session = journal.header.id;
  const target = new HarnessStore(scopeLocation(scope, ctx));
  const revisions = target.revisions();
  const parent = revisions.at(-1)?.rev ?? null;
  const after = Math.max(options.after ?? 0, lastRefined(ctx, session));
  const trajectory = collectTrajectory(journal.events, after, options.maxChars);
  const all = openStores(ctx).flatMap((s) => s.entries());
  // A lesson of this session carried forward is listed once, as the session's own.
  const own = new Set(all.filter((e) => e.scope === "session").map((e) => e.id));
  const entries = all.filter((e) => e.scope !== "probation" || !own.has(e.id));
  const proposals = ctx.sessionDir ? readProposals(scopeLocation("session", ctx).dir, session, after) : [];
  const base: Refinement = {
    session,
    scope,
    model: client.model,
    parent,
    trajectory: { from: trajectory.from, to: trajectory.to, omitted: trajectory.omitted },
    accepted: [],
    rejected: [],
    diff: "",
    cost: null,
  };
  if (trajectory.shown.size === 0) {
    return {
      ...base,
      error: `no new events in session ${session} since its last refinement (event ${after})`,
    };
  }
  const prompt = refinePrompt({ session, scope, entries, proposals, trajectory, focus: options.focus });
  const request: ModelRequest = {
    system: REFINE_SYSTEM,
    messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
    tools: [],
    ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
  };
  const skipped = options.preflight?.(request);
  if (skipped !== undefined) return { ...base, skipped };
  const result = await callRefineModel(client, request, options);
  if (result.status === "refused") return { ...base, skipped: result.reason };
  if (result.status === "failed") {
    const spent = result.usage ? { usage: result.usage, cost: result.cost ?? null } : {};
    return { ...base, ...spent, error: result.error };
  }
  const withSpend = { ...base, usage: result.usage, cost: result.cost };
  const list = parseEditList(result.text);
  if (!Array.isArray(list)) return { ...withSpend, error: list.error };

  const state = target.state();
  const others = entries.filter((e) => e.scope !== scope);
  const now = new Date().toISOString();
  const working = new Map(state);
  const accepted: Refinement["accepted"] = [];
  const rejected: Rejected[] = [];
  list.forEach((raw, index) => {
    const evidence =
      raw && typeof raw === "object"
        ? checkEvidence((raw as { evidence?: unknown }).evidence, session, journal.events, trajectory)
        : { reason: "not an object" };
    if ("reason" in evidence) {
      rejected.push({ index, edit: raw, reason: evidence.reason });
      return;
    }
    const quoted = checkQuotes((raw as { quote?: unknown }).quote, evidence.events, trajectory);
    if ("reason" in quoted) {
      rejected.push({ index, edit: raw, reason: quoted.reason });
      return;
    }
    const checked = checkIntent(
      { ...(raw as object), evidence: evidence.events },
      {
        state,
        scopeName: scope,
        others,
        batch: accepted.map((a) => a.intent),
        requireEvidence: true,
        source: "refine",
      },
    );
    if (!checked.ok) {
      rejected.push({ index, edit: raw, reason: checked.reason });
      return;
    }
    const edit = intentToEdit(checked.intent, working, now, scope);
    if ("dropped" in edit) {
      rejected.push({ index, edit: raw, reason: edit.dropped });
      return;
    }
    applyEdits(working, [edit], "");
    // The id shown in the preview is the id that gets written.
    const withId = checked.intent.op === "add" ? { ...checked.intent, id: edit.id } : checked.intent;
    const hypothesis = hypothesisOf(raw);
    const intent = hypothesis ? { ...withId, hypothesis } : withId;
    accepted.push({ index, intent, edit: hypothesis ? { ...edit, hypothesis } : edit });
  });
  return { ...withSpend, accepted, rejected, diff: formatEdits(accepted.map((a) => a.edit)) };
}

/**
 * A refinement asked for by a running session (`/refine`, `harness.refine()`, a learning pass): its model
 * call is admitted by the session's budgets like `llm()` (capped by --max-tokens, stopped at --max-time),
 * counts against them and is journaled as an llm_call.
 */
export async function proposeForSession(
  session: { budget: Budget; record(body: JournalBody): unknown },
  options: RefineOptions,
): Promise<Refinement> {
  return proposeRefinement({
    ...options,
    budget: session.budget,
    onSpend: (usage, cost, durationMs) => {
      session.budget.addSpend(usage.inputTokens + usage.outputTokens, cost);
      session.record({ type: "llm_call", model: options.client.model, prompts: 1, usage, cost, durationMs });
    },
  });
}

/** What the refine model said an edit should change, when it said it (kept to one short line). */
function hypothesisOf(raw: unknown): string | undefined {
  const h = raw && typeof raw === "object" ? (raw as { hypothesis?: unknown }).hypothesis : undefined;
  if (typeof h !== "string" || h.trim() === "") return undefined;
  return oneLine(h, 300);
}

/**
 * Writes the accepted edits as one revision of the target scope (`by` names who, and why, when not a
 * person's refine). Edits of a session's own scope are also carried forward to its project's probation
 * scope (`carried`), so the project's next sessions start with them (docs/harness.md, "Probation").
 */
export function applyRefinement(
  ref: Refinement,
  ctx: HarnessContext,
  by: { author?: string; reason?: string } = {},
): CommitResult & { carried?: Revision } {
  const store = new HarnessStore(scopeLocation(ref.scope, ctx));
  const events = [...new Set(ref.accepted.flatMap((a) => a.intent.evidence ?? []))].sort((a, b) => a - b);
  const result = store.commit({
    intents: ref.accepted.map((a) => a.intent),
    parent: ref.parent,
    author: by.author ?? `refine ${ref.model}`,
    reason: by.reason ?? `refine of session ${ref.session}`,
    evidence: { session: ref.session, events },
    trajectory: { session: ref.session, from: ref.trajectory.from, to: ref.trajectory.to },
  });
  const { sessionDir } = ctx;
  if (ref.scope !== "session" || !result.revision || !sessionDir) return result;
  const carried = carryForward(result.revision, { ...ctx, sessionDir });
  return carried ? { ...result, carried } : result;
}

/** What a person reads before agreeing: the diff and each rejected edit with its reason. */
export function describeRefinement(ref: Refinement): string {
  const lines: string[] = [];
  const window = `events ${ref.trajectory.from}–${ref.trajectory.to}${ref.trajectory.omitted ? `, ${ref.trajectory.omitted} left out for length` : ""}`;
  lines.push(`refine of session ${ref.session} (${window}) with ${ref.model} → ${ref.scope} scope`);
  if (ref.note) lines.push(ref.note);
  else if (ref.skipped) lines.push(`not run: ${ref.skipped}`);
  else if (ref.error) lines.push(`nothing proposed: ${ref.error}`);
  else if (ref.accepted.length === 0) lines.push("no edits to apply");
  else lines.push(`${ref.accepted.length} edit(s) to apply:`, ref.diff);
  for (const r of ref.rejected) {
    const what = r.edit && typeof r.edit === "object" ? JSON.stringify(r.edit).slice(0, 160) : String(r.edit);
    lines.push(`rejected edit ${r.index + 1}: ${r.reason}\n    ${what}`);
  }
  return lines.join("\n");
}
