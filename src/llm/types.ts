// Wire-neutral shapes shared by every model client. Nothing here knows about agents or kernels.

// The wire format, the thinking levels and the price are named by the configuration too, so they are
// defined below llm/, in config/model-types.ts.
import type { PresetRequestShape, Price, Provider, ThinkingLevel } from "../config/model-types.js";

export type { Price, Provider, ThinkingLevel } from "../config/model-types.js";

/**
 * The reasoning an answer came with, kept so it is sent back unchanged with that answer in later
 * requests: OpenAI's Responses API continues a model's reasoning from its (encrypted) reasoning items,
 * and Anthropic requires an answer's thinking blocks (signed) before its tool_use blocks. Opaque outside
 * the wire format that produced it; any other format leaves it out.
 */
export interface Reasoning {
  format: "openai-responses" | "anthropic";
  /**
   * Responses: the reasoning output items (id, summary, encrypted_content, ...); Anthropic: the thinking
   * and redacted_thinking blocks (with their signatures). Each exactly as received, in order.
   */
  items: Record<string, unknown>[];
  /** Responses: the output item ids of the answer's message (key "message") and function calls (by call id). */
  itemIds?: Record<string, string>;
}

export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: ImageMimeType; data: string };

/** The image types every wire format here sends (cells' display() images are PNG; look() adds the rest). */
export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** A tool call as the model sent it; `arguments` is the raw JSON text, parsed by the caller. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

interface UserMessage {
  role: "user";
  content: ContentPart[];
}

export interface AssistantMessage {
  role: "assistant";
  text: string;
  toolCalls: ToolCall[];
  /** Reasoning to send back with this answer (see Reasoning); absent for most models. */
  reasoning?: Reasoning;
}

export interface ToolResultMessage {
  role: "tool";
  toolCallId: string;
  content: ContentPart[];
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  system: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  /** Sent as max_tokens (Anthropic; OpenAI-compatible servers) or max_completion_tokens (openai.com). */
  maxOutputTokens?: number;
  /**
   * Epoch ms after which the caller has no use for an answer: no retry starts that the time left cannot
   * cover. A try already in flight is not cut here; abort the signal for that.
   */
  deadline?: number;
  /**
   * A stable name for the conversation this request continues (the session id): sent as OpenAI's
   * `prompt_cache_key` where the endpoint takes one, so a session's requests share a cache. Not secret.
   */
  cacheKey?: string;
}

export interface Usage {
  /**
   * Total prompt tokens, cached and cache-write tokens included (for Anthropic: input_tokens +
   * cache_read_input_tokens + cache_creation_input_tokens; for OpenAI: prompt_tokens).
   */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (included in inputTokens). */
  cachedInputTokens: number;
  /** Input tokens written to the provider's prompt cache (Anthropic; included in inputTokens). */
  cacheWriteTokens: number;
  /** True when the provider did not report usage and the figures are our estimate. */
  estimated: boolean;
  /** Output tokens spent on reasoning (included in outputTokens), when the provider reports them. */
  reasoningTokens?: number;
}

export type ModelErrorKind =
  | "auth" // 401/403: bad or missing key
  | "not_found" // 404: usually an unknown model or a wrong base URL
  | "unreachable" // connection refused, DNS failure
  | "rate_limited" // 429 after all retries
  | "server" // 5xx after all retries
  | "bad_request" // 400/422 and other client errors
  | "context_length" // the prompt does not fit the model's context window (or the request, HTTP 413, the endpoint)
  | "stream" // the stream broke or ended early after all retries
  | "timeout" // no bytes for too long after all retries
  | "aborted"; // the caller's AbortSignal fired

export interface ModelError {
  kind: ModelErrorKind;
  status?: number;
  /** One line a user can act on. Never contains the API key. */
  message: string;
  /** Body excerpt returned by the server, capped, for diagnostics. */
  detail?: string;
  attempts: number;
  /** The failure was worth another try, but the request's deadline left no time for one. */
  outOfTime?: boolean;
}

export interface ModelResponse {
  message: AssistantMessage;
  usage: Usage;
  /** USD, or null when the model's prices are unknown. */
  cost: number | null;
  /**
   * The provider's own value: OpenAI `stop` / `tool_calls` / `length`,
   * Anthropic `end_turn` / `tool_use` / `max_tokens`, Responses `completed` or the reason it is
   * incomplete (`max_output_tokens`, `content_filter`).
   */
  stopReason: string;
  attempts: number;
  /** Size of the request body that succeeded, in bytes. */
  requestBytes: number;
}

/**
 * Streaming events. A `retry` event means everything streamed since the previous request start must be
 * discarded: the request is being sent again. Exactly one `done` or `error` ends every stream.
 */
export type StreamEvent =
  | { type: "text"; delta: string }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "tool_call_delta"; index: number; delta: string }
  /** Readable reasoning as it streams (Responses reasoning summaries, Anthropic thinking); display only. */
  | { type: "reasoning"; delta: string }
  /** Something the request had to leave out (e.g. thinking blocks that cannot verify), said before it is sent. */
  | { type: "notice"; message: string }
  /** `attempt` is the number of the try about to start (2 for the first retry); `delayMs` the wait before it. */
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  | ({ type: "done" } & ModelResponse)
  | { type: "error"; error: ModelError };

export interface ModelClient {
  readonly provider: Provider;
  /** The endpoint as the person chose it, for what a person reads (ClientOptions.via, else the provider). */
  readonly via: string;
  readonly model: string;
  readonly acceptsImages: boolean;
  /** Prices in effect (ClientOptions.price, else the built-in table), or null when unknown. */
  readonly price: Price | null;
  /** The most output tokens one answer of this model may have, when known (configured or built in). */
  readonly maxOutputTokens: number | undefined;
  /**
   * The prompt tokens `request` will count, estimated from its body before it is sent: calibrated on the
   * server's own counts of earlier requests, with a margin; four bytes a token before any.
   */
  estimateInputTokens(request: ModelRequest): number;
  /** Never throws and never rejects: failures arrive as an `error` event. */
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<StreamEvent>;
}

/**
 * What a client is made with. Its preset's request shape (PresetRequestShape) is part of it: the
 * headers and query of every request, the header the key goes in (Azure's `api-key`), the catalog
 * section prices, windows and limits are looked up in first, and whether the server is local (LM
 * Studio, vLLM, Ollama: no price, only windows and limits).
 */
/** Where each setting a model error may ask the user to check came from; see ClientOptions.origins. */
export interface SettingOrigins {
  apiKey?: string;
  model?: string;
  baseUrl?: string;
}

export interface ClientOptions extends PresetRequestShape {
  provider: Provider;
  /** e.g. http://localhost:11434/v1 (OpenAI-compatible) or https://api.anthropic.com */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /**
   * Where the key, the model name and the base URL were set (`apiKey in ~/.relm/config.json`,
   * `OPENAI_API_KEY`, `--model`), for the error that asks the user to check one; unset: the RELM_
   * variable is named.
   */
  origins?: SettingOrigins;
  /** The endpoint as the person chose it (a preset, a subscription, a server's host); default the provider. */
  via?: string;
  /** Use server-sent events; default true. */
  stream?: boolean;
  /** Total tries including the first; default 5. */
  maxAttempts?: number;
  /** First backoff step in ms; default 1000. Doubles per try, with full jitter, capped by retryMaxMs. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Abort a try when no byte arrives for this long; default 300 000 (config `requestIdleTimeout`). */
  idleTimeoutMs?: number;
  /**
   * The most bytes one streamed event (or a whole non-streamed answer) may have; a larger one fails the
   * request as malformed. Default 16 MiB (config `maxStreamEventMB`).
   */
  maxEventBytes?: number;
  /** Overrides the built-in price table. */
  price?: Price;
  /** Overrides the built-in guess of whether the model takes images. */
  acceptsImages?: boolean;
  /** The model's output limit; default: the built-in table (see limits.ts), else none sent. */
  maxOutputTokens?: number;
  /** `--thinking`; unset sends nothing (the model's default). Mapped per wire format (thinking.ts). */
  thinking?: ThinkingLevel;
  /** Whether the model reasons (Responses: asks for encrypted reasoning); default: guessed from its name. */
  reasoning?: boolean;
  /**
   * Responses: ask for reasoning summaries (`reasoning.summary: "auto"`), streamed as `reasoning` events.
   * Off by default: OpenAI refuses it (400) for organizations that are not verified.
   */
  reasoningSummary?: boolean;
  /**
   * Request headers that authenticate, instead of the API key's (subscription sign-in): called before
   * every try. After a 401 it is called once more with `refresh: true` and the try repeated at once.
   */
  auth?: (context: AuthContext) => Promise<Record<string, string>>;
  /**
   * System text sent before the agent's own, as its own block (Anthropic): Claude's subscription API
   * accepts only requests whose system prompt starts with Claude Code's identity line.
   */
  systemPreamble?: string;
  /** false: no output cap is sent (ChatGPT's Codex backend rejects `max_output_tokens`). Default true. */
  sendOutputCap?: boolean;
}

/** What ClientOptions.auth is told about a try. */
export interface AuthContext {
  /** After a 401: get new credentials first. */
  refresh: boolean;
  /** The role of the request's last message (Copilot counts a person's own turn differently). */
  lastRole?: "user" | "assistant" | "tool";
}
