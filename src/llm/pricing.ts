// Built-in prices and capabilities for well-known models. Deliberately small: unknown models get a null cost
// rather than a wrong one, and ClientOptions.price / acceptsImages override everything here.

import type { Price, Provider, Usage } from "./types.js";

/** USD per million tokens. cacheWrite is the 5-minute cache write price. */
const PRICES: Record<string, Price> = {
  "gpt-5": { input: 1.25, cachedInput: 0.125, output: 10 },
  "gpt-5-mini": { input: 0.25, cachedInput: 0.025, output: 2 },
  "gpt-5-nano": { input: 0.05, cachedInput: 0.005, output: 0.4 },
  "gpt-5-pro": { input: 15, output: 120 },
  "gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, cachedInput: 0.025, output: 0.4 },
  "gpt-4o": { input: 2.5, cachedInput: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6 },
  o1: { input: 15, cachedInput: 7.5, output: 60 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  "o3-mini": { input: 1.1, cachedInput: 0.55, output: 4.4 },
  "o3-pro": { input: 20, output: 80 },
  "o4-mini": { input: 1.1, cachedInput: 0.275, output: 4.4 },
  "claude-opus-4": { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
  "claude-opus-4-5": { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25 },
  "claude-sonnet-4": { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  "claude-haiku-4-5": { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 },
  "claude-3-7-sonnet": { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  "claude-3-5-sonnet": { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  "claude-3-5-haiku": { input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4 },
  "claude-3-haiku": { input: 0.25, cachedInput: 0.03, cacheWrite: 0.3, output: 1.25 },
  "claude-3-opus": { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
};

/** `openai/gpt-4.1` (OpenRouter) and `gpt-4-1` compare equal; dots and dashes are interchangeable. */
export function normalizeModelName(model: string): string {
  const name = model.toLowerCase().trim();
  return name.slice(name.lastIndexOf("/") + 1).replace(/\./g, "-");
}

const NORMALIZED = Object.entries(PRICES)
  .map(([name, price]) => [normalizeModelName(name), price] as const)
  .sort((a, b) => b[0].length - a[0].length);

/** Exact name, else the longest known prefix (dated snapshots like gpt-4o-2024-08-06); null when unknown. */
export function lookupPrice(model: string): Price | null {
  const name = normalizeModelName(model);
  for (const [known, price] of NORMALIZED) {
    if (name === known || name.startsWith(`${known}-`)) return price;
  }
  return null;
}

export function guessAcceptsImages(provider: Provider, model: string): boolean {
  const name = normalizeModelName(model);
  if (name.startsWith("claude")) return !/^claude-(1|2|instant)/.test(name);
  if (provider === "anthropic") return false;
  if (/^o[13]-mini/.test(name)) return false;
  return /^(gpt-4o|gpt-4-1|gpt-4-turbo|gpt-5|o[1-9])/.test(name);
}

/** USD. Cached and cache-write tokens are part of usage.inputTokens and are priced at their own rates. */
export function computeCost(usage: Usage, price: Price | null): number | null {
  if (!price) return null;
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const written = Math.min(usage.cacheWriteTokens, usage.inputTokens - cached);
  const fresh = usage.inputTokens - cached - written;
  const total =
    fresh * price.input +
    cached * (price.cachedInput ?? price.input) +
    written * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output;
  return total / 1_000_000;
}
