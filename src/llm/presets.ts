// What requests do with a provider preset: its key header, its query, whether OpenAI's prompt cache key
// is sent. The presets themselves, and the rules that pick one, are config/presets.ts (configuration
// resolves them; the model clients and the front ends import them from there).

import { hostOf } from "../config/base-url.js";
import type { ProviderPreset } from "../config/model-types.js";
import type { Provider } from "./types.js";

/** Request headers for a key as the preset sends it, with the preset's own headers. */
export function presetHeaders(
  base: Record<string, string>,
  apiKey: string | undefined,
  keyHeader: ProviderPreset["keyHeader"],
  extra: Record<string, string> | undefined,
): Record<string, string> {
  const headers = { ...base, ...extra };
  if (apiKey && keyHeader === "api-key") {
    delete headers.authorization;
    headers["api-key"] = apiKey;
  }
  return headers;
}

/**
 * Whether requests carry OpenAI's `prompt_cache_key`: the Responses API (OpenAI's own), and chat
 * completions only at api.openai.com. Compatible servers may refuse a field they do not know (Mistral
 * does), and the others cache on the prefix alone (DeepSeek, Gemini's implicit cache, vLLM).
 */
export function sendsCacheKey(wire: Provider, baseUrl: string): boolean {
  return wire === "openai-responses" || (wire === "openai" && hostOf(baseUrl) === "api.openai.com");
}

/** The request URL: the base's `{model}` filled in, the preset's query appended. */
export function fillBaseUrl(baseUrl: string, model: string): string {
  return baseUrl.replaceAll("{model}", encodeURIComponent(model));
}

export function withQuery(url: string, query: Record<string, string> | undefined): string {
  if (!query || Object.keys(query).length === 0) return url;
  const params = new URLSearchParams(query).toString();
  return `${url}${url.includes("?") ? "&" : "?"}${params}`;
}
