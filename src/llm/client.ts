// The ModelClient: picks a wire format, builds the byte-stable body, runs the retry loop, and turns the
// decoded answer into a `done` event with usage and cost.

import { anthropicWire } from "./anthropic.js";
import { type ErrorContext, redact, serverLine } from "./errors.js";
import { type HttpCall, sendWithRetries } from "./http.js";
import { outputLimit, TokenEstimator } from "./limits.js";
import { openaiWire } from "./openai.js";
import { fillBaseUrl, presetHeaders, sendsCacheKey, withQuery } from "./presets.js";
import { computeCost, guessAcceptsImages, priceIn } from "./pricing.js";
import { responsesWire } from "./responses.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
import { DEFAULT_MAX_EVENT_BYTES } from "./sse.js";
import { isOpenAIReasoningModel } from "./thinking.js";
import type {
  AssistantMessage,
  ClientOptions,
  ModelClient,
  ModelRequest,
  Price,
  Provider,
  StreamEvent,
  Usage,
} from "./types.js";
import type { BodySettings, Decoded, WireFormat } from "./wire.js";

const WIRES: Record<Provider, WireFormat> = {
  openai: openaiWire,
  "openai-responses": responsesWire,
  anthropic: anthropicWire,
};

export function createModelClient(options: ClientOptions): ModelClient {
  const wire: WireFormat = WIRES[options.provider] ?? openaiWire;
  // The catalog: the preset's section first; a local server's models cost nothing per token there and
  // run with the server's own output limit.
  const section = { section: options.catalog };
  const acceptsImages = options.acceptsImages ?? guessAcceptsImages(options.provider, options.model, section);
  const price = priceIn(options);
  const policy: RetryPolicy = {
    maxAttempts: options.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts,
    retryBaseMs: options.retryBaseMs ?? DEFAULT_RETRY_POLICY.retryBaseMs,
    retryMaxMs: options.retryMaxMs ?? DEFAULT_RETRY_POLICY.retryMaxMs,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_RETRY_POLICY.idleTimeoutMs,
  };
  const maxOutputTokens =
    options.maxOutputTokens ??
    outputLimit(options.provider, options.model, options.local ? { fallback: "none" } : section);
  const setup: Setup = {
    options,
    wire,
    policy,
    acceptsImages,
    price,
    maxOutputTokens,
    estimator: new TokenEstimator(),
  };
  return {
    provider: options.provider,
    via: options.via ?? options.provider,
    model: options.model,
    acceptsImages,
    price,
    maxOutputTokens,
    // With the widest cap the body may carry: the field counts as prompt too.
    estimateInputTokens: (request) =>
      setup.estimator.estimate(
        Buffer.byteLength(buildBody(setup, { ...request, maxOutputTokens: WIDEST_CAP })),
      ),
    stream: (request, signal) => streamSafely(setup, request, signal),
  };
}

/** What a client fixed when it was created, for each of its requests. */
interface Setup {
  options: ClientOptions;
  wire: WireFormat;
  policy: RetryPolicy;
  acceptsImages: boolean;
  price: Price | null;
  /** The model's output limit, when known: no request asks for more. */
  maxOutputTokens: number | undefined;
  /** Prompt tokens per body byte, learned from this client's answers. */
  estimator: TokenEstimator;
}

/** A stand-in cap as long as any real one, for measuring a body before its cap is known. */
const WIDEST_CAP = 999_999_999;

function buildBody(setup: Setup, request: ModelRequest): string {
  return setup.wire.body(request, bodySettings(setup, request));
}

function bodySettings(setup: Setup, request: ModelRequest): BodySettings {
  const { options, acceptsImages, maxOutputTokens } = setup;
  const asked = request.maxOutputTokens ?? options.maxOutputTokens;
  return {
    model: options.model,
    baseUrl: options.baseUrl,
    stream: options.stream ?? true,
    acceptsImages,
    maxOutputTokens:
      options.sendOutputCap === false
        ? undefined
        : asked !== undefined && maxOutputTokens !== undefined
          ? Math.min(asked, maxOutputTokens)
          : asked,
    thinking: options.thinking,
    reasoningModel: options.reasoning ?? isOpenAIReasoningModel(options.model),
    reasoningSummary: options.reasoningSummary,
    promptCacheKey: sendsCacheKey(options.provider, options.baseUrl) ? request.cacheKey : undefined,
    systemPreamble: options.systemPreamble,
  };
}

async function* streamSafely(
  setup: Setup,
  request: ModelRequest,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEvent, void> {
  try {
    yield* streamRequest(setup, request, signal);
  } catch (err) {
    // A bug here must still end the stream the documented way rather than reject the consumer's loop.
    const text = err instanceof Error ? err.message : String(err);
    yield {
      type: "error",
      error: {
        kind: "stream",
        message: redact(`internal error: ${serverLine(text)}`, setup.options.apiKey),
        attempts: 0,
      },
    };
  }
}

async function* streamRequest(
  setup: Setup,
  request: ModelRequest,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEvent, void> {
  const { options, wire, policy, price } = setup;
  const url = withQuery(wire.endpoint(fillBaseUrl(options.baseUrl, options.model)), options.query);
  const ctx: ErrorContext = {
    url,
    baseUrl: options.baseUrl,
    model: options.model,
    apiKey: options.apiKey,
    ...(options.origins ? { origins: options.origins } : {}),
  };
  if (!/^https?:\/\//i.test(options.baseUrl) || !URL.canParse(url)) {
    const message = `the base URL "${options.baseUrl}" is not an http(s) URL; check ${options.origins?.baseUrl ?? "RELM_BASE_URL"}`;
    yield {
      type: "error",
      error: { kind: "unreachable", message: redact(message, options.apiKey), attempts: 0 },
    };
    return;
  }
  const stream = options.stream ?? true;
  const body = buildBody(setup, request);
  for (const message of wire.notices?.(request, bodySettings(setup, request)) ?? []) {
    yield { type: "notice", message };
  }
  const bytes = Buffer.byteLength(body);
  const call = {
    url,
    // A sign-in's headers replace the API key's (ClientOptions.auth).
    headers: presetHeaders(
      wire.headers(options.auth ? undefined : options.apiKey),
      options.auth ? undefined : options.apiKey,
      options.keyHeader,
      options.headers,
    ),
    body,
    stream,
    wire,
    ctx,
    deadline: request.deadline,
    auth: authFor(options, request),
    maxEventBytes: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
  };
  for await (const event of sendWithRetries(call, policy, signal)) {
    if (event.type !== "decoded") {
      yield event;
      continue;
    }
    if (event.value.usage) setup.estimator.observe(bytes, event.value.usage.inputTokens);
    const usage = event.value.usage ?? estimateUsage(body, event.value);
    const message: AssistantMessage = {
      role: "assistant",
      text: event.value.text,
      toolCalls: event.value.toolCalls,
    };
    if (event.value.reasoning) message.reasoning = event.value.reasoning;
    yield {
      type: "done",
      message,
      usage,
      cost: computeCost(usage, price),
      stopReason: event.value.stopReason,
      attempts: event.attempts,
      requestBytes: bytes,
    };
  }
}

/** ClientOptions.auth, told the role of the request's last message as well. */
function authFor(options: ClientOptions, request: ModelRequest): HttpCall["auth"] {
  const auth = options.auth;
  if (!auth) return undefined;
  const lastRole = request.messages[request.messages.length - 1]?.role;
  return (context) => auth({ ...context, lastRole });
}

/** About four characters per token; good enough for budgets when the server says nothing. */
function estimateUsage(body: string, decoded: Decoded): Usage {
  let outputChars = decoded.text.length;
  for (const call of decoded.toolCalls) outputChars += call.name.length + call.arguments.length;
  return {
    inputTokens: Math.ceil(body.length / 4),
    outputTokens: Math.ceil(outputChars / 4),
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    estimated: true,
  };
}
