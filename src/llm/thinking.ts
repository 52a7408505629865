// `--thinking off|low|medium|high` as each wire format takes it, and which models reason at all.
// Unset means "send nothing": the model's own default, which is what relm did before the setting existed.

import { findModel } from "./catalog/index.js";
import { normalizeModelName } from "./pricing.js";
import type { Reasoning, ThinkingLevel } from "./types.js";

/** Anthropic's thinking budget per level, before the answer's max_tokens caps it. */
const ANTHROPIC_THINKING_BUDGET: Record<Exclude<ThinkingLevel, "off">, number> = {
  low: 2048,
  medium: 8192,
  high: 24_576,
};

/** Anthropic rejects a smaller budget_tokens. */
const ANTHROPIC_MIN_THINKING = 1024;

/**
 * budget_tokens for an Anthropic request, or undefined for no `thinking` field. It must be below
 * max_tokens (thinking counts against it) and leave the answer a quarter of it; when that leaves less
 * than Anthropic's minimum (a request capped hard by --max-tokens) the request goes without thinking.
 */
export function anthropicThinkingBudget(
  level: ThinkingLevel | undefined,
  maxTokens: number,
): number | undefined {
  if (level === undefined || level === "off") return undefined;
  const budget = Math.min(ANTHROPIC_THINKING_BUDGET[level], Math.floor((maxTokens * 3) / 4));
  return budget >= ANTHROPIC_MIN_THINKING ? budget : undefined;
}

/**
 * max_tokens of an Anthropic request that no budget capped: relm's usual ask, and with thinking on the
 * thinking budget on top of it, so the answer keeps its room, within the model's output limit from the
 * catalog (unknown models keep the usual ask, and thinking gets its share of that).
 */
export function anthropicMaxTokens(model: string, level: ThinkingLevel | undefined, usual: number): number {
  if (level === undefined || level === "off") return usual;
  const limit = findModel(model)?.maxOutput;
  if (limit === undefined) return usual;
  return Math.max(usual, Math.min(usual + ANTHROPIC_THINKING_BUDGET[level], limit));
}

/**
 * OpenAI's reasoning models (o-series, gpt-5 and its codex variants), by name, with or without a
 * router's vendor prefix (`openai/o3`). They take `reasoning_effort` / `reasoning.effort`; others reject it.
 */
export function isOpenAIReasoningModel(model: string): boolean {
  return /^(o[1-9]|gpt-5|codex)/.test(normalizeModelName(model));
}

/**
 * The effort an OpenAI request names, or undefined to send none. "off" sends none either: OpenAI's
 * reasoning models cannot stop reasoning, so the model's default applies; other models get nothing.
 */
export function openaiEffort(level: ThinkingLevel | undefined, reasoningModel: boolean): string | undefined {
  if (!reasoningModel || level === undefined || level === "off") return undefined;
  return level;
}

/** The readable part of an answer's reasoning (Responses summaries, Anthropic thinking), for display. */
export function reasoningText(reasoning: Reasoning | undefined): string {
  if (!reasoning) return "";
  const parts: string[] = [];
  for (const item of reasoning.items) {
    if (typeof item.thinking === "string") parts.push(item.thinking);
    if (Array.isArray(item.summary)) {
      for (const s of item.summary) {
        const text = (s as { text?: unknown } | null)?.text;
        if (typeof text === "string") parts.push(text);
      }
    }
  }
  return parts.join("\n\n");
}
