// Context windows by model name. Deliberately small, like the price table: unknown models get a
// conservative default and configuration overrides everything here.

import { normalizeModelName } from "../llm/pricing.js";

export const DEFAULT_CONTEXT_WINDOW = 32_768;

/**
 * Prompt tokens a request may hold, by model-name prefix (names normalised: lower case, no provider
 * prefix, dots as dashes). For models whose output shares the window (gpt-5: 400k total, 128k output),
 * the figure is what is left for input. Local servers often run models with a smaller window than the
 * model supports (Ollama's num_ctx): configure an override there.
 */
const WINDOWS: Record<string, number> = {
  "gpt-5": 272_000,
  "gpt-4-1": 1_047_576,
  "gpt-4o": 128_000,
  "gpt-4-turbo": 128_000,
  "gpt-4": 8_192,
  "gpt-3-5-turbo": 16_385,
  "gpt-oss": 131_072,
  o1: 200_000,
  "o1-mini": 128_000,
  o3: 200_000,
  "o4-mini": 200_000,
  claude: 200_000,
  gemini: 1_048_576,
  llama3: 8_192,
  "llama3-1": 131_072,
  "llama3-2": 131_072,
  "llama3-3": 131_072,
  "llama-3": 8_192,
  "llama-3-1": 131_072,
  "llama-3-2": 131_072,
  "llama-3-3": 131_072,
  qwen3: 32_768,
  "qwen3-coder": 262_144,
  "qwen2-5": 32_768,
  qwq: 131_072,
  mistral: 32_768,
  "mistral-large": 131_072,
  "mistral-nemo": 131_072,
  mixtral: 32_768,
  codestral: 256_000,
  deepseek: 128_000,
  gemma3: 131_072,
  gemma2: 8_192,
  phi4: 16_384,
};

export interface ContextWindow {
  tokens: number;
  source: "override" | "table" | "default";
  /** The table or override key that matched. */
  matched?: string;
}

// Ollama tags (qwen3:8b) and sizes (llama3-1-8b) both follow the family name.
const SEPARATORS = ["-", ":", "_", "@"];

function match(name: string, table: Record<string, number>): [string, number] | undefined {
  const entries = Object.entries(table)
    .map(([k, v]) => [normalizeModelName(k), v] as [string, number])
    .sort((a, b) => b[0].length - a[0].length);
  return entries.find(([key]) => name === key || SEPARATORS.some((s) => name.startsWith(`${key}${s}`)));
}

/** The model's context window: an override (same prefix rules) first, then the table, then 32 768. */
export function contextWindow(model: string, overrides: Record<string, number> = {}): ContextWindow {
  const name = normalizeModelName(model);
  const override = match(name, overrides);
  if (override) return { tokens: override[1], source: "override", matched: override[0] };
  const known = match(name, WINDOWS);
  if (known) return { tokens: known[1], source: "table", matched: known[0] };
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
