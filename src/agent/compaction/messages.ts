// Compaction: when the prompt nears the model's window, older turns become one structured summary written
// by the model, and the last turns stay verbatim. The kernel is untouched, so its variables live on; the
// caller journals a marker pointing at the full history and swaps the messages in.

import { collectResponse, isModelError } from "../../llm/complete.js";
import type { Message, ModelClient, ModelError, ModelRequest, StreamEvent, Usage } from "../../llm/types.js";
import { userMessage } from "../core/tool.js";
import { renderTranscript } from "./render.js";
import { DEFAULT_CONTEXT_WINDOW, estimateTokens } from "./windows.js";

export { contextWindow, estimateTokens, needsCompaction } from "./windows.js";

/** First line of every summary message; also how a later compaction recognises an earlier one. */
export const COMPACTION_NOTICE =
  "[relm: the earlier turns of this session were compacted into this summary. The kernel kept running, " +
  "so its variables still exist. The full history is in the session journal.]";

interface CompactOptions {
  client: ModelClient;
  messages: readonly Message[];
  /** The task, stated verbatim in the summary; default the first user message (or an earlier summary's goal). */
  goal?: string;
  constraints?: readonly string[];
  /** Names of the kernel's live variables. */
  liveVariables: readonly string[];
  /** Paths the session created or changed. */
  filesTouched: readonly string[];
  /** Model turns (an assistant message with its tool results) kept verbatim; default 2. */
  keepLastTurns?: number;
  /** The model's window in tokens; bounds the summary request. Default 32 768. */
  window?: number;
  /**
   * Lets the summary request through the caller's budget (its answer capped, a signal for its deadline),
   * or says why not. The caller gives back whatever it reserved once it has booked the spend.
   */
  admit?: (
    request: ModelRequest,
  ) => Promise<{ stream: () => AsyncIterable<StreamEvent> } | { error: string }>;
}

export interface CompactResult {
  /** The summary message followed by the kept turns. */
  messages: Message[];
  /** The model's summary text, as written. */
  summary: string;
  usage: Usage;
  cost: number | null;
  /** How many messages the summary replaced, and how many were kept. */
  summarized: number;
  kept: number;
  /** Estimated prompt tokens of the messages before and after. */
  tokensBefore: number;
  tokensAfter: number;
}

interface CompactFailure {
  error: string;
  modelError?: ModelError;
  /**
   * Nothing went wrong: a summary would not make the prompt smaller (a short conversation), so nothing
   * was replaced. With `usage`/`cost` when a summary was written and then discarded (its spend is real).
   */
  skipped?: boolean;
  usage?: Usage;
  cost?: number | null;
}

/** The summary's answer cap. */
const SUMMARY_TOKENS = 2_048;

const SYSTEM = `You summarise the earlier part of a coding agent's session so that the agent can continue without it. The agent works in a persistent IPython kernel whose variables survive. Write concise Markdown with exactly these sections:
## Goal
## Constraints
## Progress so far
## Decisions
## Live kernel variables
## Files touched
## Open problems and next steps
Keep what is needed to continue: file paths, function and variable names, commands, exact error messages, numbers, what was tried and did not work. Never invent anything. No preamble.`;

/** Estimated prompt tokens of messages (text, code and outputs; an image counts as 1 000). */
export function estimateMessagesTokens(messages: readonly Message[]): number {
  let tokens = 0;
  for (const m of messages) {
    tokens += 4;
    const parts = m.role === "assistant" ? [] : m.content;
    for (const p of parts) tokens += p.type === "text" ? estimateTokens(p.text) : 1_000;
    if (m.role === "assistant") {
      tokens += estimateTokens(m.text);
      for (const c of m.toolCalls) tokens += estimateTokens(c.name + c.arguments) + 8;
    }
  }
  return tokens;
}

/**
 * Where the verbatim tail starts: at the assistant message that opens the `keepLastTurns`-th last turn,
 * pulled back over user messages just before it (the prompt of that turn). Cutting only before an
 * assistant or user message means every kept tool call keeps its result and no kept result is orphaned.
 */
export function compactionCut(messages: readonly Message[], keepLastTurns: number): number {
  if (keepLastTurns <= 0) return messages.length;
  let seen = 0;
  let cut = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role !== "assistant") continue;
    cut = i;
    if (++seen === keepLastTurns) break;
  }
  if (seen === 0) return messages.length;
  while (cut > 0 && messages[cut - 1]?.role === "user") cut--;
  return cut;
}

function textOf(m: Message | undefined): string {
  if (!m || m.role === "assistant") return m?.text ?? "";
  return m.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
}

/** The goal of an earlier summary, else the first user message. */
function defaultGoal(messages: readonly Message[]): string {
  const first = messages.find((m) => m.role === "user");
  const text = textOf(first);
  if (text.startsWith(COMPACTION_NOTICE)) {
    const m = /\n## Goal\n([\s\S]*?)\n\n## /.exec(text);
    if (m?.[1]) return m[1];
  }
  return text.length > 4_000 ? `${text.slice(0, 4_000)} [...]` : text;
}

function list(items: readonly string[], none: string, format = (s: string) => `- ${s}`): string {
  return items.length > 0 ? items.map(format).join("\n") : none;
}

/** The most kernel variables a summary names: a kernel may hold thousands, which would outgrow the turns. */
const MAX_NAMED_VARIABLES = 100;

/** The first MAX_NAMED_VARIABLES names, and how many more the kernel holds. */
function namedVariables(names: readonly string[]): { shown: readonly string[]; more: string } {
  if (names.length <= MAX_NAMED_VARIABLES) return { shown: names, more: "" };
  const rest = names.length - MAX_NAMED_VARIABLES;
  return {
    shown: names.slice(0, MAX_NAMED_VARIABLES),
    more: `\n(and ${rest} more: \`%who\` in a cell lists them all)`,
  };
}

export async function compactMessages(options: CompactOptions): Promise<CompactResult | CompactFailure> {
  const keepLastTurns = options.keepLastTurns ?? 2;
  const cut = compactionCut(options.messages, keepLastTurns);
  const older = options.messages.slice(0, cut);
  const kept = options.messages.slice(cut);
  if (older.length === 0) {
    return {
      skipped: true,
      error: `not compacted: nothing to compact, the conversation has no turns before the last ${keepLastTurns}`,
    };
  }
  const goal = options.goal ?? defaultGoal(options.messages);
  const constraints = options.constraints ?? [];
  const window = options.window ?? DEFAULT_CONTEXT_WINDOW;
  // Room for the transcript: the window less the summary's output and a margin, at ~4 chars a token.
  const budget = Math.max(4_000, Math.floor((window * 0.75 - SUMMARY_TOKENS) * 4) - SYSTEM.length);
  const variables = namedVariables(options.liveVariables);
  const facts = [
    `Goal:\n${goal}`,
    `Constraints:\n${list(constraints, "(none stated)")}`,
    `Live kernel variables (names): ${list(variables.shown, "(none recorded)", (v) => v).replace(/\n/g, ", ")}${variables.more}`,
    `Files touched:\n${list(options.filesTouched, "(none recorded)")}`,
  ].join("\n\n");
  // What the summary message holds besides the model's words: when that alone is no smaller than the
  // turns it would replace, a summary can only make the prompt larger, so no model call is made.
  const tokensBefore = estimateMessagesTokens(options.messages);
  const scaffold = summaryMessage(goal, constraints, options, "", kept.length, keepLastTurns);
  const floor = estimateMessagesTokens([scaffold, ...withoutOrphans(kept)]);
  if (floor >= tokensBefore) return notSmaller(tokensBefore, floor);
  const request = `${facts}\n\nTranscript of the earlier turns:\n\n${renderTranscript(older, budget - facts.length)}\n\nWrite the summary now.`;
  const asked: ModelRequest = {
    system: SYSTEM,
    messages: [userMessage(request)],
    tools: [],
    maxOutputTokens: SUMMARY_TOKENS,
  };
  // Through the caller's admission when it has one: capped, and metered against the budget as it streams.
  const gate = options.admit ? await options.admit(asked) : { stream: () => options.client.stream(asked) };
  if ("error" in gate) return { error: gate.error };
  const response = await collectResponse(gate.stream());
  if (isModelError(response)) {
    return { error: `compaction failed: ${response.error.message}`, modelError: response.error };
  }
  const summary = response.message.text.trim();
  if (summary === "") return { error: "compaction failed: the model returned an empty summary" };

  const messages: Message[] = [
    summaryMessage(goal, constraints, options, summary, kept.length, keepLastTurns),
    ...withoutOrphans(kept),
  ];
  const tokensAfter = estimateMessagesTokens(messages);
  // A summary longer than what it replaces is discarded; its call was still paid for.
  if (tokensAfter >= tokensBefore) {
    return { ...notSmaller(tokensBefore, tokensAfter), usage: response.usage, cost: response.cost };
  }
  return {
    messages,
    summary,
    usage: response.usage,
    cost: response.cost,
    summarized: older.length,
    kept: kept.length,
    tokensBefore,
    tokensAfter,
  };
}

function notSmaller(before: number, after: number): CompactFailure {
  return {
    skipped: true,
    error: `not compacted: the conversation is short (about ${before} tokens) and a summary would not make it smaller (about ${after})`,
  };
}

/** The message that stands for the older turns: relm's sections, then the model's summary. */
function summaryMessage(
  goal: string,
  constraints: readonly string[],
  options: Pick<CompactOptions, "liveVariables" | "filesTouched">,
  summary: string,
  kept: number,
  keepLastTurns: number,
): Message {
  const variables = namedVariables(options.liveVariables);
  const text = [
    COMPACTION_NOTICE,
    `## Goal\n${goal}`,
    `## Constraints\n${list(constraints, "(none stated)")}`,
    `## Live kernel variables\n${list(variables.shown, "(none recorded)", (v) => `- \`${v}\``)}${variables.more}`,
    `## Files touched\n${list(options.filesTouched, "(none recorded)")}`,
    // The model's own headings go one level down, under ours.
    `## Summary of the earlier turns\n${summary.replace(/^(#{1,5}) /gm, "#$1 ")}`,
    kept > 0
      ? `The last ${keepLastTurns === 1 ? "turn follows" : "turns follow"} verbatim. Continue working towards the goal.`
      : "Continue working towards the goal.",
  ].join("\n\n");
  return userMessage(text);
}

/** Drops tool results whose call is not in `kept` (providers reject them); the cut should leave none. */
function withoutOrphans(kept: readonly Message[]): Message[] {
  const calls = new Set(kept.flatMap((m) => (m.role === "assistant" ? m.toolCalls.map((c) => c.id) : [])));
  return kept.filter((m) => m.role !== "tool" || calls.has(m.toolCallId));
}
