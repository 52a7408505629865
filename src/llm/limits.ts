// Output limits of known models (from the model catalog) and the prompt-size estimate used to cap an
// answer before it is asked for. Unknown models get no limit from us (the server applies its own), and
// ClientOptions.maxOutputTokens overrides everything here.

import { defaultMaxTokens } from "./anthropic.js";
import { type FindOptions, findModel } from "./catalog/index.js";
import type { Provider } from "./types.js";

/**
 * The model's output limit: the catalog's (the endpoint's section, else the model's maker's), never
 * more for Anthropic than what relm asks it for by default (older models reject more); undefined when
 * the catalog does not know the model.
 */
export function outputLimit(
  provider: Provider,
  model: string,
  options: FindOptions = {},
): number | undefined {
  const known = findModel(model, options)?.maxOutput;
  if (provider !== "anthropic") return known;
  const asked = defaultMaxTokens(model);
  return known === undefined ? asked : Math.min(known, asked);
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
