// The few model shapes configuration names (wire format, thinking level, price, a provider preset). They
// live here, below llm/, so that resolving the configuration needs nothing of the model clients;
// llm/types.ts re-exports them.

/** The wire format: OpenAI chat-completions, OpenAI Responses, Anthropic messages. */
export type Provider = "openai" | "openai-responses" | "anthropic";

/** How hard a reasoning model thinks (`--thinking`, config `thinking`), mapped per wire format in llm/thinking.ts. */
export type ThinkingLevel = "off" | "low" | "medium" | "high";

export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "low", "medium", "high"];

/** USD per million tokens. */
export interface Price {
  input: number;
  output: number;
  cachedInput?: number;
  cacheWrite?: number;
}

/** A known provider (config/presets.ts holds them): a type of its own here, so that llm/types.ts and the
 * web page, which import types only, need nothing of the presets' code. */
export interface ProviderPreset {
  name: string;
  /** For pickers and `relm models`. */
  label: string;
  /** The wire format requests use. */
  wire: Provider;
  /** Default base URL. `{model}` is replaced by the model name (Azure's deployment URL). */
  baseUrl: string;
  /** Environment variables that hold the key, first set wins (RELM_API_KEY is checked before them). */
  keyEnv: string[];
  /** An environment variable that moves the base URL (RELM_BASE_URL and --base-url still win). */
  baseUrlEnv?: string;
  /** Turns that variable's value into a base URL (Azure: the resource endpoint -> deployment URL). */
  baseUrlFrom?: (value: string) => string;
  /** The header that carries the key: `authorization` (Bearer, the default), `x-api-key`, `api-key`. */
  keyHeader?: "authorization" | "x-api-key" | "api-key";
  /** Headers sent with every request (attribution headers OpenRouter asks apps for). */
  headers?: Record<string, string>;
  /** Query parameters of every request (Azure's api-version); values may be overridden by env. */
  query?: Record<string, string>;
  /** Environment variables that override query values (name -> query key). */
  queryEnv?: Record<string, string>;
  /** The model catalog section with this provider's models and prices; none for local servers. */
  catalog?: string;
  /** A server on this machine: no key needed, and no price (its models cost nothing per token here). */
  local?: boolean;
  /** Where a key is made, for the login picker. */
  keyUrl?: string;
}

/** What a preset adds to every request of its client (and the catalog its models are looked up in). */
export type PresetRequestShape = Pick<
  ProviderPreset,
  "headers" | "query" | "keyHeader" | "catalog" | "local"
>;
