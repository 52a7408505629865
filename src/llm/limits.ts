// Output limits of well-known models and the prompt-size estimate used to cap an answer before it is
// asked for. Deliberately small, like the price table: unknown models get no limit from us (the server
// applies its own), and ClientOptions.maxOutputTokens overrides everything here.

import { defaultMaxTokens } from "./anthropic.js";
import { normalizeModelName } from "./pricing.js";
import type { Provider } from "./types.js";

/** Output tokens one answer may have, by model-name prefix (OpenAI's published limits). */
const OPENAI_OUTPUT: Record<string, number> = {
  "gpt-5": 128_000,
  "gpt-4-1": 32_768,
  "gpt-4o": 16_384,
  "gpt-4-turbo": 4_096,
  "gpt-3-5-turbo": 4_096,
  o1: 100_000,
  "o1-mini": 65_536,
  o3: 100_000,
  "o3-mini": 100_000,
  "o4-mini": 100_000,
};

const OPENAI_SORTED = Object.entries(OPENAI_OUTPUT).sort((a, b) => b[0].length - a[0].length);

/**
 * The model's output limit: what relm asks Anthropic for by default (older models reject more), the
 * table for OpenAI's models, undefined for other OpenAI-compatible servers.
 */
export function outputLimit(provider: Provider, model: string): number | undefined {
  if (provider === "anthropic") return defaultMaxTokens(model);
  const name = normalizeModelName(model);
  for (const [known, limit] of OPENAI_SORTED) {
    if (name === known || name.startsWith(`${known}-`)) return limit;
  }
  return undefined;
}

/** Before any server count: four bytes a token, the figure relm books when a server reports no usage. */
const FIRST_TOKENS_PER_BYTE = 1 / 4;
/** A request differs from the one the ratio was measured on; count this much more to stay on the safe side. */
const MARGIN = 1.1;

/**
 * Prompt tokens from a request body's size. Each answer with real usage calibrates the ratio, so the
 * estimate follows the server's tokenizer and chat template (the body's JSON punctuation included).
 */
export class TokenEstimator {
  private tokensPerByte: number | undefined;

  estimate(bytes: number): number {
    const ratio = this.tokensPerByte === undefined ? FIRST_TOKENS_PER_BYTE : this.tokensPerByte * MARGIN;
    return Math.ceil(bytes * ratio);
  }

  /** A server's count of a request's prompt tokens. */
  observe(bytes: number, inputTokens: number): void {
    if (bytes > 0 && inputTokens > 0) this.tokensPerByte = inputTokens / bytes;
  }
}
