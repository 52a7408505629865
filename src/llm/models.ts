// What an endpoint serves, and whether a model there answers: for the login picker and /model.

import { presetClientOptions } from "../config/presets.js";
import { collectResponse, isModelError } from "./complete.js";
import { createModelClient } from "./index.js";
import { presetHeaders, withQuery } from "./presets.js";
import type { ClientOptions, Provider } from "./types.js";

/** The models an endpoint lists (and the URL asked), or what went wrong. */
type ModelList = { ids: string[]; url: string } | { error: string; status?: number };

interface ListOptions {
  /** Default 5 s. */
  timeoutMs?: number;
  /** The provider preset's name: the key goes in its header (Azure's api-key), with its query. */
  preset?: string;
  /** Where the preset's query overrides are read (AZURE_OPENAI_API_VERSION); default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** The URL that lists an endpoint's models (OpenAI-compatible: {base}/models; Anthropic: /v1/models). */
function modelsUrl(provider: Provider, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return provider === "anthropic" ? `${base.replace(/\/v1$/, "")}/v1/models` : `${base}/models`;
}

/**
 * Asks the endpoint for its models; never throws. The key is sent only to that endpoint, in the header
 * the provider's preset sends it in (Azure's api-key), with the preset's query (Azure's api-version).
 */
export async function listModels(
  provider: Provider,
  baseUrl: string,
  apiKey: string | undefined,
  { timeoutMs = 5000, preset, env = process.env }: ListOptions = {},
): Promise<ModelList> {
  // An address with the model in it (an Azure deployment) has no list of models to ask: whatever it
  // answered would be about the wrong URL (a 401 read as "rejected the API key", or a 404).
  if (baseUrl.includes("{model}"))
    return {
      error:
        "the endpoint's address names the model (a deployment), so there is no list to ask: type its name",
    };
  const { keyHeader, query } = presetClientOptions(preset, env);
  const url = withQuery(modelsUrl(provider, baseUrl), query);
  const headers: Record<string, string> =
    provider === "anthropic"
      ? { "anthropic-version": "2023-06-01", ...(apiKey ? { "x-api-key": apiKey } : {}) }
      : presetHeaders(apiKey ? { authorization: `Bearer ${apiKey}` } : {}, apiKey, keyHeader, undefined);
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (response.status === 401 || response.status === 403) {
      return { error: `${url} rejected the API key (HTTP ${response.status})`, status: response.status };
    }
    if (!response.ok) return { error: `${url} answered HTTP ${response.status}`, status: response.status };
    const body = (await response.json().catch(() => ({}))) as {
      data?: { id?: unknown }[];
      models?: { name?: unknown }[];
    };
    // OpenAI and Anthropic answer {data: [{id}]}; Ollama's native /api/tags answers {models: [{name}]}.
    const ids = [...(body.data ?? []).map((m) => m.id), ...(body.models ?? []).map((m) => m.name)].filter(
      (id): id is string => typeof id === "string" && id !== "",
    );
    return { ids: [...new Set(ids)].sort(), url };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    if (cause === "ECONNREFUSED") return { error: `nothing is listening at ${url}` };
    if ((error as Error).name === "TimeoutError")
      return { error: `${url} did not answer within ${timeoutMs / 1000} s` };
    // fetch says only "fetch failed": the cause's code (ENOTFOUND, ECONNRESET, a certificate's) says why.
    return { error: `cannot reach ${url} (${cause ?? (error as Error).message})` };
  }
}

/**
 * One tiny request (a one-token answer) that proves the endpoint, key and model work together.
 * Returns undefined when it does, else what went wrong in words a person can act on.
 */
export async function testModel(options: {
  provider: Provider;
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
  /** A provider preset's name: its headers, query and key header (Azure's api-key) are used too. */
  preset?: string;
  /** How a subscription signs its requests in (llm/auth/client-options.ts), instead of a key. */
  signIn?: Pick<ClientOptions, "auth" | "systemPreamble" | "sendOutputCap">;
}): Promise<string | undefined> {
  const client = createModelClient({
    ...presetClientOptions(options.preset, process.env),
    ...options.signIn,
    provider: options.provider,
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    model: options.model,
    stream: false,
    maxAttempts: 1,
  });
  const signal = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  const result = await collectResponse(
    client.stream(
      {
        system: "Answer with one word.",
        messages: [{ role: "user", content: [{ type: "text", text: "Say ok." }] }],
        tools: [],
        maxOutputTokens: 1,
      },
      signal,
    ),
  );
  if (!isModelError(result)) return undefined;
  return result.error.kind === "aborted" ? "the test request timed out" : result.error.message;
}
