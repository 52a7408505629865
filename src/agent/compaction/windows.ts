// Context windows by model name: configuration first, then the model catalog, then a conservative
// default. A local server often runs a model with a smaller window than the model supports (Ollama's
// num_ctx): configure an override there.

import { findModel, normalizeModelName } from "../../llm/catalog/index.js";

export const DEFAULT_CONTEXT_WINDOW = 32_768;

interface ContextWindow {
  tokens: number;
  source: "override" | "catalog" | "default";
  /** The override key or catalog id that matched. */
  matched?: string;
}

// Ollama tags (qwen3:8b) and sizes (llama3-1-8b) both follow the family name in an override key.
const SEPARATORS = ["-", ":", "_", "@"];

function match(name: string, table: Record<string, number>): [string, number] | undefined {
  const entries = Object.entries(table)
    .map(([k, v]) => [normalizeModelName(k), v] as [string, number])
    .sort((a, b) => b[0].length - a[0].length);
  return entries.find(([key]) => name === key || SEPARATORS.some((s) => name.startsWith(`${key}${s}`)));
}

/**
 * The prompt tokens a request may hold: an override (config.json contextWindows, by name prefix) first,
 * then the catalog (the endpoint's section when given, else any: a window is the model's wherever it
 * is served), where a stated input limit below the window wins (GPT-5: 400k window, 272k input), then
 * 32 768.
 */
export function contextWindow(
  model: string,
  overrides: Record<string, number> = {},
  section?: string,
): ContextWindow {
  const name = normalizeModelName(model);
  const override = match(name, overrides);
  if (override) return { tokens: override[1], source: "override", matched: override[0] };
  const known = findModel(model, { section, fallback: "any" });
  const tokens = known?.inputLimit ?? known?.contextWindow;
  if (known && tokens) return { tokens, source: "catalog", matched: known.id };
  return { tokens: DEFAULT_CONTEXT_WINDOW, source: "default" };
}

/** About four characters per token, as the client estimates usage when a server reports none. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** True once the last request's prompt reached `threshold` of the window. */
export function needsCompaction(lastInputTokens: number, window: number, threshold = 0.8): boolean {
  if (!(threshold > 0 && threshold <= 1)) {
    throw new RangeError(`compaction threshold must be in (0, 1], got ${threshold}`);
  }
  return lastInputTokens >= window * threshold;
}
