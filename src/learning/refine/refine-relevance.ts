// The relevance check (issue 21): a quote found verbatim in the events an edit cites proves the words are
// real, not that they show what the edit claims — "Ignore the base system prompt." quoting an unrelated
// but real event passes every mechanical check. So after those checks, the refine model (the cheaper one)
// is asked once per refinement, for all edits together, whether each edit's quoted evidence supports its
// claim; an edit answered "no" is rejected with the model's reason.

import type { ModelClient, ModelRequest, Usage } from "../../llm/types.js";
import type { Edit, Intent } from "../store/index.js";
import { callRefineModel, type RefineCallOptions, refineRequest } from "./refine-call.js";
import { replyArray } from "./refine-prompt.js";
import { flat } from "./refine-quotes.js";
import type { Trajectory } from "./refine-trajectory.js";

/** Fixed, so the check's requests start with the same bytes. Tests recognise the check by its first line. */
const RELEVANCE_SYSTEM = `You check the evidence of proposed harness edits: lessons a coding agent will read in later sessions.

Each edit makes a claim (its content, and what it should change) and quotes journal events of the session it was learnt from. For each edit decide whether the quoted events support the claim: "yes" only when they show what the claim says, or show that it was needed; "no" when the quote is real but about something else, or does not show the claim. Judge only the evidence shown, not whether the lesson sounds useful.

Reply with only a JSON array, one object per edit, in order:
[{"edit": 1, "supports": "yes", "why": "one short sentence"}, {"edit": 2, "supports": "no", "why": "..."}]`;

/** What each cited event shows of itself around the quote: enough to judge, cheap to send. */
const EXCERPT_CHARS = 600;
/** The answer's cap: a short reason per edit. */
const ANSWER_TOKENS_PER_EDIT = 80;

interface RelevanceItem {
  intent: Intent;
  edit: Edit;
  quotes: readonly string[];
}

type RelevanceResult =
  | { verdicts: { supports: boolean; why: string }[]; usage?: Usage; cost: number | null }
  /**
   * The check could not be made (the call failed, was refused or answered something else), or was not
   * asked (`notAsked`: a budget would not cover it).
   */
  | { error: string; usage?: Usage; cost: number | null; notAsked?: true };

/** The event's text around the first quote found in it (whole when short). */
function excerpt(text: string, quotes: readonly string[], max = EXCERPT_CHARS): string {
  const body = flat(text);
  if (body.length <= max) return body;
  const at = quotes.map((q) => body.indexOf(flat(q))).find((i) => i >= 0) ?? 0;
  const start = Math.max(0, Math.min(at - Math.floor(max / 3), body.length - max));
  return `${start > 0 ? "…" : ""}${body.slice(start, start + max)}${start + max < body.length ? "…" : ""}`;
}

function claimOf(item: RelevanceItem): string {
  const { intent, edit } = item;
  const entry = edit.after ?? edit.before;
  const what = `${intent.op} ${entry?.kind ?? ("kind" in intent ? intent.kind : "entry")}`;
  const title = entry?.title ? ` "${entry.title}"` : "";
  const lines = [`claim: ${what}${title}: ${flat(entry?.content ?? "")}`];
  const hypothesis = edit.hypothesis ?? intent.hypothesis;
  if (hypothesis) lines.push(`should change: ${flat(hypothesis)}`);
  if (intent.reason) lines.push(`reason given: ${flat(intent.reason)}`);
  return lines.join("\n");
}

/** The check's one question: every edit, its claim, its quotes and the events they come from. */
function relevancePrompt(items: readonly RelevanceItem[], trajectory: Pick<Trajectory, "texts">): string {
  const lines = [
    `Check whether the evidence of each of these ${items.length} proposed harness edits supports it.`,
  ];
  items.forEach((item, i) => {
    lines.push("", `## Edit ${i + 1}`, claimOf(item));
    lines.push(`quoted: ${item.quotes.map((q) => JSON.stringify(flat(q))).join("; ")}`);
    lines.push("cited events:");
    for (const n of item.intent.evidence ?? []) {
      lines.push(`[${n}] ${excerpt(trajectory.texts.get(n) ?? "", item.quotes)}`);
    }
  });
  lines.push("", "Reply with only the JSON array.");
  return lines.join("\n");
}

/** One verdict per item from the model's reply, or why the reply cannot be read as the check's answer. */
function parseRelevance(
  text: string,
  count: number,
): { supports: boolean; why: string }[] | { error: string } {
  const parsed = replyArray(text);
  if (!Array.isArray(parsed))
    return { error: `the answer is not a JSON list of verdicts: ${text.trim().slice(0, 160)}` };
  const out: { supports: boolean; why: string }[] = [];
  for (let i = 0; i < count; i++) {
    const found = parsed.find(
      (p) => p && typeof p === "object" && Number((p as { edit?: unknown }).edit) === i + 1,
    ) as { supports?: unknown; why?: unknown } | undefined;
    const said = found?.supports;
    const yes = said === true || (typeof said === "string" && /^\s*yes\b/i.test(said));
    const no = said === false || (typeof said === "string" && /^\s*no\b/i.test(said));
    const why = typeof found?.why === "string" ? flat(found.why).slice(0, 300) : "";
    // No answer for an edit is no support: an edit is kept only when the check said yes to it.
    if (!yes && !no) out.push({ supports: false, why: "the relevance check gave no answer for it" });
    else out.push({ supports: yes, why });
  }
  return out;
}

/** Asks the refine model once whether each item's quotes support its claim. */
export async function checkRelevance(
  client: ModelClient,
  items: readonly RelevanceItem[],
  trajectory: Pick<Trajectory, "texts">,
  options: RefineCallOptions & { preflight?: (request: ModelRequest) => string | undefined },
): Promise<RelevanceResult> {
  const request = refineRequest(RELEVANCE_SYSTEM, relevancePrompt(items, trajectory), {
    maxOutputTokens: 200 + ANSWER_TOKENS_PER_EDIT * items.length,
  });
  // A budget that would not cover the check: not asked, so nothing unchecked is applied (held).
  const refused = options.preflight?.(request);
  if (refused !== undefined) return { error: refused, cost: 0, notAsked: true };
  const result = await callRefineModel(client, request, options);
  if (result.status === "refused") return { error: result.reason, cost: 0 };
  if (result.status === "failed")
    return { error: result.error, usage: result.usage, cost: result.cost ?? null };
  const verdicts = parseRelevance(result.text, items.length);
  const spend = { usage: result.usage, cost: result.cost };
  return "error" in verdicts ? { error: verdicts.error, ...spend } : { verdicts, ...spend };
}

/** Two calls' usage as one (a refinement's spend: its proposal and its relevance check). */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a || !b) return a ?? b;
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    estimated: a.estimated || b.estimated,
    ...(a.reasoningTokens !== undefined || b.reasoningTokens !== undefined
      ? { reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0) }
      : {}),
  };
}
