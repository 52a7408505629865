// The ModelClient: picks a wire format, builds the byte-stable body, runs the retry loop, and turns the
// decoded answer into a `done` event with usage and cost.

import { anthropicWire } from "./anthropic.js";
import { type ErrorContext, oneLine, redact } from "./errors.js";
import { sendWithRetries } from "./http.js";
import { openaiWire } from "./openai.js";
import { computeCost, guessAcceptsImages, lookupPrice } from "./pricing.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
import type { ClientOptions, ModelClient, ModelRequest, Price, StreamEvent, Usage } from "./types.js";
import type { Decoded, WireFormat } from "./wire.js";

export function createModelClient(options: ClientOptions): ModelClient {
  const wire: WireFormat = options.provider === "anthropic" ? anthropicWire : openaiWire;
  const acceptsImages = options.acceptsImages ?? guessAcceptsImages(options.provider, options.model);
  const price = options.price ?? lookupPrice(options.model);
  const policy: RetryPolicy = {
    maxAttempts: options.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts,
    retryBaseMs: options.retryBaseMs ?? DEFAULT_RETRY_POLICY.retryBaseMs,
    retryMaxMs: options.retryMaxMs ?? DEFAULT_RETRY_POLICY.retryMaxMs,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_RETRY_POLICY.idleTimeoutMs,
  };
  return {
    provider: options.provider,
    model: options.model,
    acceptsImages,
    price,
    stream: (request, signal) =>
      streamSafely({ options, wire, policy, acceptsImages, price }, request, signal),
  };
}

/** What a client fixed when it was created, for each of its requests. */
interface Setup {
  options: ClientOptions;
  wire: WireFormat;
  policy: RetryPolicy;
  acceptsImages: boolean;
  price: Price | null;
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
        message: redact(`internal error: ${oneLine(text)}`, setup.options.apiKey),
        attempts: 0,
      },
    };
  }
}

async function* streamRequest(
  { options, wire, policy, acceptsImages, price }: Setup,
  request: ModelRequest,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEvent, void> {
  const url = wire.endpoint(options.baseUrl);
  const ctx: ErrorContext = { url, baseUrl: options.baseUrl, model: options.model, apiKey: options.apiKey };
  if (!/^https?:\/\//i.test(options.baseUrl) || !URL.canParse(url)) {
    const message = `the base URL "${options.baseUrl}" is not an http(s) URL; check RELM_BASE_URL`;
    yield {
      type: "error",
      error: { kind: "unreachable", message: redact(message, options.apiKey), attempts: 0 },
    };
    return;
  }
  const stream = options.stream ?? true;
  const body = wire.body(request, {
    model: options.model,
    baseUrl: options.baseUrl,
    stream,
    acceptsImages,
    maxOutputTokens: request.maxOutputTokens ?? options.maxOutputTokens,
  });
  const call = { url, headers: wire.headers(options.apiKey), body, stream, wire, ctx };
  for await (const event of sendWithRetries(call, policy, signal)) {
    if (event.type !== "decoded") {
      yield event;
      continue;
    }
    const usage = event.value.usage ?? estimateUsage(body, event.value);
    yield {
      type: "done",
      message: { role: "assistant", text: event.value.text, toolCalls: event.value.toolCalls },
      usage,
      cost: computeCost(usage, price),
      stopReason: event.value.stopReason,
      attempts: event.attempts,
      requestBytes: Buffer.byteLength(body),
    };
  }
}

/** About four characters per token; good enough for budgets when the server says nothing. */
export function estimateUsage(body: string, decoded: Decoded): Usage {
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
