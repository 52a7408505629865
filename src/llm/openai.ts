// OpenAI chat-completions, the dialect shared by OpenAI, Ollama, vLLM, LM Studio, llama.cpp and OpenRouter.

import { hostOf } from "../config/base-url.js";
import { asRecord } from "../config/records.js";
import { dataUrl, flattenToText, serializeWithToolRuns } from "./content.js";
import { refusalKind, serverLine, serverMessage } from "./errors.js";
import type { SseEvent } from "./sse.js";
import { openaiEffort } from "./thinking.js";
import type { ContentPart, Message, ModelRequest, ToolResultMessage, Usage } from "./types.js";
import {
  Assembly,
  asNumber,
  type BodySettings,
  bearerHeaders,
  type DecodeResult,
  type DeltaEvent,
  eventRecord,
  malformed,
  streamFailure,
  trimSlashes,
  type WireFormat,
} from "./wire.js";

export const openaiWire: WireFormat = {
  endpoint: (baseUrl) => `${trimSlashes(baseUrl)}/chat/completions`,
  headers: bearerHeaders,
  body: buildOpenAIBody,
  decodeStream: decodeOpenAIStream,
  decodeJson: decodeOpenAIJson,
};

function buildOpenAIBody(request: ModelRequest, settings: BodySettings): string {
  const head: Record<string, unknown> = { model: settings.model };
  if (settings.stream) {
    head.stream = true;
    head.stream_options = { include_usage: true };
  }
  if (settings.maxOutputTokens !== undefined) {
    // OpenAI's reasoning models reject `max_tokens`; most compatible servers only know `max_tokens`.
    const field = /(^|\.)openai\.com$/.test(hostOf(settings.baseUrl))
      ? "max_completion_tokens"
      : "max_tokens";
    head[field] = settings.maxOutputTokens;
  }
  // The same key for every request of a session (the client sends one only to api.openai.com), so
  // OpenAI routes them to the cache that holds their shared prefix.
  if (settings.promptCacheKey) head.prompt_cache_key = settings.promptCacheKey;
  const effort = openaiEffort(settings.thinking, settings.reasoningModel);
  if (effort) head.reasoning_effort = effort;
  if (request.tools.length > 0) {
    head.tools = request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
  const messages = serializeMessages(request, settings.acceptsImages);
  return `${JSON.stringify(head).slice(0, -1)},"messages":[${messages.join(",")}]}`;
}

function serializeMessages(request: ModelRequest, acceptsImages: boolean): string[] {
  const system = request.system ? [JSON.stringify({ role: "system", content: request.system })] : [];
  const messages = serializeWithToolRuns(
    request.messages,
    acceptsImages,
    (m) => [JSON.stringify(wireMessage(m, acceptsImages))],
    {
      result: (m, content) => ({ role: "tool", tool_call_id: m.toolCallId, content }),
      text: (text) => ({ type: "text", text }),
      image: (url) => ({ type: "image_url", image_url: { url } }),
      userMessage: (content) => ({ role: "user", content }),
    },
  );
  return [...system, ...messages];
}

function wireMessage(m: Exclude<Message, ToolResultMessage>, acceptsImages: boolean): unknown {
  if (m.role === "user") return { role: "user", content: userContent(m.content, acceptsImages) };
  const wire: Record<string, unknown> = { role: "assistant", content: m.text };
  if (m.toolCalls.length > 0) {
    wire.tool_calls = m.toolCalls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return wire;
}

function userContent(parts: readonly ContentPart[], acceptsImages: boolean): unknown {
  // Plain strings are what every compatible server understands; arrays only when images need them.
  if (!acceptsImages || parts.every((p) => p.type === "text")) return flattenToText(parts);
  return parts.map((p) =>
    p.type === "text"
      ? { type: "text", text: p.text }
      : { type: "image_url", image_url: { url: dataUrl(p) } },
  );
}

function mapUsage(value: unknown): Usage | null {
  const u = asRecord(value);
  if (!u) return null;
  const input = asNumber(u.prompt_tokens);
  const output = asNumber(u.completion_tokens);
  if (input === undefined && output === undefined) return null;
  const details = asRecord(u.prompt_tokens_details);
  // DeepSeek reports cache hits under its own name.
  const cached = asNumber(details?.cached_tokens) ?? asNumber(u.prompt_cache_hit_tokens) ?? 0;
  return {
    inputTokens: input ?? 0,
    outputTokens: output ?? 0,
    cachedInputTokens: cached,
    cacheWriteTokens: 0,
    estimated: false,
  };
}

/**
 * An `error` in a chunk (or in a whole answer). OpenAI-compatible servers say what kind it is in their
 * own ways: a numeric status in `code` (vLLM, llama.cpp, OpenRouter) or a name in `code` / `type`. A
 * refusal of the request (a 4xx, an invalid or too long prompt) is reported once, as the same request
 * would be refused again; a failure of the server, a rate limit, or an error that does not say, is
 * retried.
 */
function streamedError(error: unknown): DecodeResult {
  const text = typeof error === "string" ? error : serverMessage(JSON.stringify({ error }));
  const message = `the server reported an error mid-stream: ${serverLine(text)}`;
  const err = asRecord(error);
  const status = Number(typeof err?.code === "string" ? err.code.trim() : (err?.code ?? Number.NaN));
  const name = [err?.code, err?.type].filter((v) => typeof v === "string").join(" ");
  const fail = (kind: "server" | "rate_limited" | "bad_request", retryable: boolean): DecodeResult => ({
    ok: false,
    failure: {
      kind: kind === "bad_request" ? refusalKind(`${name} ${text}`) : kind,
      retryable,
      message,
    },
  });
  if (Number.isInteger(status) && status >= 400 && status < 600) {
    if (status === 429) return fail("rate_limited", true);
    return status >= 500 || status === 408 ? fail("server", true) : fail("bad_request", false);
  }
  if (/rate_limit/i.test(name)) return fail("rate_limited", true);
  if (name === "" || /server|overloaded|internal|unavailable|timeout|api_error/i.test(name))
    return fail("server", true);
  return fail("bad_request", false);
}

function stringOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  return JSON.stringify(value);
}

async function* decodeOpenAIStream(
  events: AsyncIterable<SseEvent>,
): AsyncGenerator<DeltaEvent, DecodeResult> {
  const assembly = new Assembly();
  const byWireIndex = new Map<number, number>();
  let finishReason: string | undefined;
  let usage: Usage | null = null;
  let sawDone = false;

  for await (const event of events) {
    const data = event.data.trim();
    if (data === "[DONE]") {
      sawDone = true;
      break;
    }
    if (data === "") continue;
    const chunk = eventRecord(data);
    if (!chunk) return malformed("stream chunk");
    if (chunk.error !== undefined && chunk.error !== null) return streamedError(chunk.error);
    usage = mapUsage(chunk.usage) ?? usage;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = asRecord(choices.find((c) => (asNumber(asRecord(c)?.index) ?? 0) === 0));
    if (!choice) continue;
    const delta = asRecord(choice.delta) ?? {};
    // A refusal comes in its own field, the content left null: it is the model's answer all the same.
    for (const text of [delta.content, delta.refusal]) {
      if (typeof text !== "string") continue;
      const ev = assembly.addText(text);
      if (ev) yield ev;
    }
    const toolCalls = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
    for (const item of toolCalls) {
      const tc = asRecord(item);
      if (!tc) continue;
      const fn = asRecord(tc.function);
      const wireIndex = asNumber(tc.index);
      const id = typeof tc.id === "string" && tc.id !== "" ? tc.id : undefined;
      let index = wireIndex !== undefined ? byWireIndex.get(wireIndex) : undefined;
      if (wireIndex === undefined && assembly.toolCalls.length > 0) {
        // Servers that omit `index` mark a new call only by a new id.
        const last = assembly.toolCalls.length - 1;
        if (id === undefined || assembly.toolCalls[last]?.id === id) index = last;
      }
      if (index === undefined) {
        const started = assembly.startToolCall(id ?? `call_${assembly.toolCalls.length}`, stringOf(fn?.name));
        index = started.index;
        if (wireIndex !== undefined) byWireIndex.set(wireIndex, index);
        yield started.event;
      }
      const ev = assembly.addArguments(index, stringOf(fn?.arguments));
      if (ev) yield ev;
    }
    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
      finishReason = choice.finish_reason;
    }
  }
  // Only a finish_reason says the model finished: some compatible servers never send [DONE] (a
  // finish_reason and a clean close are enough), and `[DONE]` after chunks without one — or with empty
  // `choices` only — is a reply that never came, to be retried like a dropped stream, not an empty answer.
  if (finishReason === undefined) {
    const message = sawDone
      ? "the stream ended without a finish reason (no answer in it)"
      : "the stream ended before the model finished";
    return streamFailure(message);
  }
  return { ok: true, value: assembly.decoded(finishReason, usage) };
}

function decodeOpenAIJson(json: unknown): DecodeResult {
  const response = asRecord(json);
  if (!response) return malformed("response");
  const choices = Array.isArray(response.choices) ? response.choices : [];
  const choice = asRecord(choices[0]);
  if (!choice) {
    if (response.error !== undefined && response.error !== null) return streamedError(response.error);
    return malformed("response (no choices)");
  }
  const message = asRecord(choice.message) ?? {};
  const assembly = new Assembly();
  if (typeof message.content === "string") assembly.addText(message.content);
  else if (Array.isArray(message.content)) {
    for (const part of message.content) {
      const p = asRecord(part);
      if (p?.type === "text" && typeof p.text === "string") assembly.addText(p.text);
    }
  }
  if (typeof message.refusal === "string") assembly.addText(message.refusal);
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  for (const item of toolCalls) {
    const tc = asRecord(item);
    const fn = asRecord(tc?.function);
    const id = typeof tc?.id === "string" && tc.id !== "" ? tc.id : `call_${assembly.toolCalls.length}`;
    const { index } = assembly.startToolCall(id, stringOf(fn?.name));
    assembly.addArguments(index, stringOf(fn?.arguments));
  }
  const finish = typeof choice.finish_reason === "string" ? choice.finish_reason : undefined;
  const stop = finish ?? (assembly.toolCalls.length > 0 ? "tool_calls" : "stop");
  return { ok: true, value: assembly.decoded(stop, mapUsage(response.usage)) };
}
