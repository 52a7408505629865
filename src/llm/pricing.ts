// Prices and capabilities of known models, from the model catalog (catalog/models.json). Unknown models
// get a null cost rather than a wrong one, and ClientOptions.price / acceptsImages override the catalog.

import { ConfigError } from "../config/errors.js";
import { type FindOptions, findModel, normalizeModelName } from "./catalog/index.js";
import type { Price, Provider, Usage } from "./types.js";

export { normalizeModelName } from "./catalog/index.js";

/**
 * USD per million tokens: the endpoint's own catalog section first (a preset's), else what the model
 * costs at its maker (exact name, then dated snapshots like gpt-4o-2024-08-06); null when unknown.
 */
export function lookupPrice(model: string, options: FindOptions = {}): Price | null {
  return findModel(model, options)?.price ?? null;
}

/** A client's prices: configured, else the catalog's (its endpoint's section first); a local server's: none. */
export function priceIn(o: {
  model: string;
  price?: Price;
  local?: boolean;
  catalog?: string;
}): Price | null {
  return o.price ?? (o.local ? null : lookupPrice(o.model, { section: o.catalog }));
}

/**
 * --max-cost counts what each call costs: with no price for the model it cannot hold. Asked where the
 * session is built (cli/setup.ts), and by the front ends that start it later, so the mistake shows at
 * once (`price` undefined: looked up for the configured model; none configured: nothing to check yet).
 */
export function checkPricedForMaxCost(
  maxCost: number | string | undefined,
  config: { configPath: string; model: { model?: string; price?: Price; local?: boolean; catalog?: string } },
  price?: Price | null,
  model = config.model.model,
): void {
  if (maxCost === undefined || model === undefined) return;
  if ((price === undefined ? priceIn({ ...config.model, model }) : price) !== null) return;
  throw new ConfigError(
    `--max-cost needs the price of "${model}", which relm does not know. Add it to ${config.configPath} ` +
      `as {"prices": {"${model}": {"input": USD_PER_MTOK, "output": USD_PER_MTOK}}}`,
  );
}

/** The catalog's word when it knows the model, else a guess from the name. */
export function guessAcceptsImages(provider: Provider, model: string, options: FindOptions = {}): boolean {
  const known = findModel(model, { ...options, fallback: options.fallback ?? "any" });
  if (known) return known.images;
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
