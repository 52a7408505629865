import type { Budget } from "../../agent/budget/budget.js";
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
import { callRefineModel, type RefineCallOptions, refineRequest } from "./refine-call.js";
import { completeEdits, parseEditList, REFINE_SYSTEM, refinePrompt } from "./refine-prompt.js";
import { readProposals } from "./refine-proposals.js";
import { checkQuotes } from "./refine-quotes.js";
import { addUsage, checkRelevance } from "./refine-relevance.js";
import { collectTrajectory, type Trajectory } from "./refine-trajectory.js";

/** The refine model calls of one refinement, in order. */
type RefineCallKind = "propose" | "relevance";

/** What a refinement reviews, and its model calls' options (a call the session's budgets refuse is skipped). */
interface RefineOptions extends RefineCallOptions {
  /** The journal of the session whose work is reviewed. */
  journalPath: string;
  /** Where the harness is; `sessionDir` is the root session's folder (the session scope). */
  ctx: HarnessContext;
  scope: Scope;
  client: ModelClient;
  /** Review the events after this one (default: after the last applied refinement of the session). */
  after?: number;
  /** What to look at first (a learning pass's trigger), told to the refine model before the trajectory. */
  focus?: string;
  /** Caps the refine model's answer, so its cost can be bounded before the call. */
  maxOutputTokens?: number;
  /**
   * Sees each exact request before it is sent — the proposal, then the relevance check of the edits that
   * passed the mechanical checks — and a reason returned skips that call (a budget would not cover it).
   */
  preflight?: (request: ModelRequest, call: RefineCallKind) => string | undefined;
  /**
   * Edits without a hypothesis are rejected ("states no hypothesis") before the relevance check, so it
   * is not asked about edits that would be dropped anyway (refine passes; learning passes give a default).
   */
  requireHypothesis?: boolean;
}

/**
 * A refinement (a learning pass, `relm refine`, `/refine`, `harness.refine()`) applies at most this many
 * edits: the first ones of the reply, in its order, that pass every check. The refine model is asked
 * for at most this many; the rest of a longer reply is skipped and said so.
 */
export const MAX_PASS_EDITS = 5;
const OVER_CAP = `over the per-pass cap of ${MAX_PASS_EDITS}`;

interface Rejected {
  index: number;
  edit: unknown;
  reason: string;
  /** Not checked: the pass already had MAX_PASS_EDITS edits. */
  capped?: true;
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
  /** Why the model was not called although there was something to review (`preflight` said so). */
  skipped?: string;
  /** The answer passed the cap relm reads, so only the edits complete before it were considered. */
  cut?: string;
  /**
   * Why the edits that passed the mechanical checks are held back, none applied: the relevance check
   * could not be made ("relevance check failed: …"), and unchecked edits are never applied.
   */
  held?: string;
  usage?: Usage;
  cost: number | null;
}

/** The last journal event of `session` an applied refinement reviewed, in any scope; 0 when none. */
function lastRefined(ctx: HarnessContext, session: string): number {
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
function checkEvidence(
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
  const target = HarnessStore.of(scope, ctx);
  const revisions = target.revisions();
  const parent = revisions.at(-1)?.rev ?? null;
  const after = Math.max(options.after ?? 0, lastRefined(ctx, session));
  const trajectory = collectTrajectory(journal.events, after);
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
  const { maxOutputTokens } = options;
  const request = refineRequest(REFINE_SYSTEM, prompt, maxOutputTokens ? { maxOutputTokens } : {});
  const skipped = options.preflight?.(request, "propose");
  if (skipped !== undefined) return { ...base, skipped };
  const result = await callRefineModel(client, request, options);
  if (result.status === "refused") return { ...base, skipped: result.reason };
  if (result.status === "failed") {
    const spent = result.usage ? { usage: result.usage, cost: result.cost ?? null } : {};
    return { ...base, ...spent, error: result.error };
  }
  const withSpend = { ...base, usage: result.usage, cost: result.cost };
  const list = result.status === "cut" ? completeEdits(result.text) : parseEditList(result.text);
  if (!Array.isArray(list)) return { ...withSpend, error: list.error };
  const cap = result.status === "cut" ? `the ${result.tokens.toLocaleString("en-US")}-token cap` : "";
  if (result.status === "cut" && list.length === 0) {
    return {
      ...withSpend,
      error: `the refine model's answer passed ${cap} before its first edit was complete, so relm stopped reading it`,
    };
  }
  const cut =
    result.status === "cut"
      ? `the answer passed ${cap}, so relm stopped reading it: the ${list.length} complete edit(s) before ` +
        "that were considered, the rest was not read"
      : undefined;

  const state = target.state();
  const others = entries.filter((e) => e.scope !== scope);
  const now = new Date().toISOString();
  const working = new Map(state);
  const accepted: Refinement["accepted"] = [];
  const quotesOf = new Map<number, string[]>();
  const rejected: Rejected[] = [];
  // Why `raw` is rejected, or undefined once it is accepted (the checks in order, the first to fail says).
  const check = (raw: unknown, index: number): string | undefined => {
    const evidence =
      raw && typeof raw === "object"
        ? checkEvidence((raw as { evidence?: unknown }).evidence, session, journal.events, trajectory)
        : { reason: "not an object" };
    if ("reason" in evidence) return evidence.reason;
    const quoted = checkQuotes((raw as { quote?: unknown }).quote, evidence.events, trajectory);
    if ("reason" in quoted) return quoted.reason;
    quotesOf.set(index, quoted.quotes);
    const checked = checkIntent(
      { ...(raw as object), evidence: evidence.events },
      {
        state,
        location: target.location,
        others,
        batch: accepted.map((a) => a.intent),
        requireEvidence: true,
        source: "refine",
      },
    );
    if (!checked.ok) return checked.reason;
    const edit = intentToEdit(checked.intent, working, now, scope);
    if ("dropped" in edit) return edit.dropped;
    applyEdits(working, [edit], "");
    // The id shown in the preview is the id that gets written.
    // The hypothesis (checkIntent's, one line) is in both already.
    const intent = checked.intent.op === "add" ? { ...checked.intent, id: edit.id } : checked.intent;
    accepted.push({ index, intent, edit });
  };
  list.forEach((raw, index) => {
    if (accepted.length >= MAX_PASS_EDITS)
      rejected.push({ index, edit: raw, reason: `skipped: ${OVER_CAP}`, capped: true });
    else {
      const reason = check(raw, index);
      if (reason !== undefined) rejected.push({ index, edit: raw, reason });
    }
  });
  const checked = {
    ...withSpend,
    ...(cut ? { cut } : {}),
    accepted,
    rejected,
    diff: formatEdits(accepted.map((a) => a.edit)),
  };
  const kept = options.requireHypothesis ? requireHypotheses(checked) : checked;
  return kept.accepted.length === 0 ? kept : checkedForRelevance(kept, quotesOf, trajectory, options);
}

const NO_HYPOTHESIS = 'states no hypothesis: say what the edit should change ("hypothesis")';

/**
 * A refine pass's edits must say what they should change, so the work after them can be judged
 * (docs/harness.md, "Verdicts"): an accepted edit without a hypothesis is moved to the rejected ones.
 * (Learning passes give a default from their trigger instead: src/learning/learn/learn.ts.)
 */
function requireHypotheses(ref: Refinement): Refinement {
  const missing = ref.accepted.filter((a) => !a.intent.hypothesis && !a.edit.hypothesis);
  const moved = missing.map((a) => ({ a, reason: NO_HYPOTHESIS }));
  return reaccepted(ref, moved);
}

/** `ref` with the `moved` edits among the rejected ones, in the reply's order (`accepted`: those kept). */
function reaccepted(
  ref: Refinement,
  moved: { a: Refinement["accepted"][number]; reason: string }[],
  accepted = ref.accepted.filter((a) => !moved.some((m) => m.a === a)),
): Refinement {
  const rejected = [
    ...ref.rejected,
    ...moved.map(({ a, reason }) => ({ index: a.index, edit: a.intent as unknown, reason })),
  ].sort((a, b) => a.index - b.index);
  return { ...ref, accepted, rejected, diff: formatEdits(accepted.map((a) => a.edit)) };
}

/**
 * The relevance check of the edits that passed the mechanical checks: those whose quotes the refine
 * model says do not support them are rejected with its reason. When the check cannot be made, nothing
 * is applied (`held`): the edits stay unchecked, and the next refinement reviews the same events.
 */
async function checkedForRelevance(
  ref: Refinement,
  quotesOf: ReadonlyMap<number, string[]>,
  trajectory: Trajectory,
  options: RefineOptions,
): Promise<Refinement> {
  const items = ref.accepted.map((a) => ({ ...a, quotes: quotesOf.get(a.index) ?? [] }));
  const result = await checkRelevance(options.client, items, trajectory, {
    ...options,
    preflight: options.preflight && ((request) => options.preflight?.(request, "relevance")),
  });
  const usage = addUsage(ref.usage, result.usage);
  const cost = ref.cost === null || result.cost === null ? null : ref.cost + result.cost;
  const spent = { ...ref, ...(usage ? { usage } : {}), cost };
  if ("error" in result) {
    const held = `relevance check ${result.notAsked ? "not asked" : "failed"}: ${result.error}`;
    return { ...spent, accepted: [], diff: "", held };
  }
  const accepted = ref.accepted.filter((_, i) => result.verdicts[i]?.supports);
  const unsupported = ref.accepted.flatMap((a, i) => {
    const verdict = result.verdicts[i];
    if (!verdict || verdict.supports) return [];
    const why = verdict.why ? `: ${verdict.why}` : "";
    return [{ a, reason: `its quote does not support it (relevance check${why})` }];
  });
  return reaccepted(spent, unsupported, accepted);
}

/**
 * A refinement asked for by a running session (`/refine`, `harness.refine()`, a learning pass): its model
 * call is admitted by the session's budgets like `llm()` (capped by --max-tokens, stopped at --max-time,
 * its answer fit beside the prompt in the session's context windows, config.json contextWindows), counts
 * against them and is journaled as an llm_call. Every caller passes here, so all three cap it alike.
 */
export async function proposeForSession(
  session: {
    budget: Budget;
    record(body: JournalBody): unknown;
    tree: { options: { compaction?: { windows?: Record<string, number> } } };
  },
  options: Omit<RefineOptions, "budget" | "windows" | "onSpend">,
): Promise<Refinement> {
  return proposeRefinement({
    ...options,
    budget: session.budget,
    windows: session.tree.options.compaction?.windows,
    onSpend: (usage, cost, durationMs) => {
      session.budget.addSpend(usage.inputTokens + usage.outputTokens, cost);
      session.record({ type: "llm_call", model: options.client.model, prompts: 1, usage, cost, durationMs });
    },
  });
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
  const store = HarnessStore.of(ref.scope, ctx);
  // A refinement built elsewhere is held to the cap too: the first MAX_PASS_EDITS, the rest reported.
  const kept = ref.accepted.slice(0, MAX_PASS_EDITS);
  const over = ref.accepted.slice(MAX_PASS_EDITS).map((a) => ({ intent: a.intent, reason: OVER_CAP }));
  const events = [...new Set(kept.flatMap((a) => a.intent.evidence ?? []))].sort((a, b) => a - b);
  const result = store.commit({
    intents: kept.map((a) => a.intent),
    parent: ref.parent,
    author: by.author ?? `refine ${ref.model}`,
    reason: by.reason ?? `refine of session ${ref.session}`,
    evidence: { session: ref.session, events },
    trajectory: { session: ref.session, from: ref.trajectory.from, to: ref.trajectory.to },
  });
  const capped = { ...result, dropped: [...result.dropped, ...over] };
  const { sessionDir } = ctx;
  if (ref.scope !== "session" || !result.revision || !sessionDir) return capped;
  const carried = carryForward(result.revision, { ...ctx, sessionDir });
  return carried ? { ...capped, carried } : capped;
}

/** What a person reads before agreeing: the diff and each rejected edit with its reason. */
export function describeRefinement(ref: Refinement): string {
  const lines: string[] = [];
  // A trajectory with nothing in it (everything was reviewed before) has no window to name.
  const window =
    ref.trajectory.to === 0
      ? "no new events"
      : `events ${ref.trajectory.from}–${ref.trajectory.to}${ref.trajectory.omitted ? `, ${ref.trajectory.omitted} left out for length` : ""}`;
  lines.push(`refine of session ${ref.session} (${window}) with ${ref.model} → ${ref.scope} scope`);
  if (ref.skipped) lines.push(`not run: ${ref.skipped}`);
  else if (ref.held) lines.push(`nothing to apply: ${ref.held}`);
  else if (ref.error) lines.push(`nothing proposed: ${ref.error}`);
  else if (ref.accepted.length === 0) lines.push("no edits to apply");
  else lines.push(`${ref.accepted.length} edit(s) to apply:`, ref.diff);
  if (ref.cut) lines.push(ref.cut);
  const capped = ref.rejected.filter((r) => r.capped).map((r) => r.index + 1);
  for (const r of ref.rejected) {
    if (r.capped) continue;
    const what = r.edit && typeof r.edit === "object" ? JSON.stringify(r.edit).slice(0, 160) : String(r.edit);
    lines.push(`rejected edit ${r.index + 1}: ${r.reason}\n    ${what}`);
  }
  if (capped.length > 0)
    lines.push(`skipped ${capped.length} more edit(s) (${listEdits(capped)}): ${OVER_CAP}`);
  return lines.join("\n");
}

function listEdits(numbers: readonly number[]): string {
  const first = numbers[0];
  const last = numbers.at(-1);
  const contiguous = numbers.every((n, i) => n === (first as number) + i);
  return contiguous && numbers.length > 2 ? `edits ${first}–${last}` : `edit ${numbers.join(", ")}`;
}
