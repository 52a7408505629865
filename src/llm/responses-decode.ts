// Decoding OpenAI Responses answers: the streamed events (or one response object) into text, function
// calls, the reasoning items to send back, usage and the reason it stopped.

import { asRecord } from "../config/records.js";
import type { SseEvent } from "./sse.js";
import type { Reasoning, Usage } from "./types.js";
import {
  Assembly,
  asNumber,
  type DecodeResult,
  type DeltaEvent,
  eventRecord,
  malformed,
  reported,
  streamFailure,
} from "./wire.js";

/** What the output items of one answer add up to, as they complete. */
class Output {
  readonly assembly = new Assembly();
  readonly reasoningItems: Record<string, unknown>[] = [];
  readonly itemIds: Record<string, string> = {};
  /** Output index of a function_call item → its tool call's index in the assembly. */
  private readonly calls = new Map<number, number>();
  /** Output indexes of message items whose text arrived as deltas. */
  private readonly streamedText = new Set<number>();

  /** A function_call item as it starts; undefined when that output index was seen already. */
  startCall(outputIndex: number, item: Record<string, unknown>): DeltaEvent | undefined {
    if (this.calls.has(outputIndex)) return undefined;
    const callId = stringField(item, "call_id") || stringField(item, "id") || `call_${this.calls.size}`;
    const started = this.assembly.startToolCall(callId, stringField(item, "name"));
    this.calls.set(outputIndex, started.index);
    const itemId = stringField(item, "id");
    if (itemId) this.itemIds[callId] = itemId;
    return started.event;
  }

  addArguments(outputIndex: number, delta: string): DeltaEvent | undefined {
    const index = this.calls.get(outputIndex);
    return index === undefined ? undefined : this.assembly.addArguments(index, delta);
  }

  addText(outputIndex: number, delta: string): DeltaEvent | undefined {
    this.streamedText.add(outputIndex);
    return this.assembly.addText(delta);
  }

  /** A finished output item: what its deltas did not already bring. */
  *finish(outputIndex: number, item: Record<string, unknown>): Generator<DeltaEvent> {
    if (item.type === "reasoning") {
      this.reasoningItems.push(item);
    } else if (item.type === "message") {
      const id = stringField(item, "id");
      if (id && this.itemIds.message === undefined) this.itemIds.message = id;
      if (!this.streamedText.has(outputIndex)) {
        const ev = this.addText(outputIndex, messageText(item));
        if (ev) yield ev;
      }
    } else if (item.type === "function_call") {
      const started = this.startCall(outputIndex, item);
      if (started) yield started;
      const index = this.calls.get(outputIndex) as number;
      const full = stringField(item, "arguments");
      const call = this.assembly.toolCalls[index];
      // The item holds the whole text: take what the deltas did not bring (servers that send none).
      if (call && full.startsWith(call.arguments) && full.length > call.arguments.length) {
        const ev = this.assembly.addArguments(index, full.slice(call.arguments.length));
        if (ev) yield ev;
      }
    }
  }

  reasoning(): Reasoning | undefined {
    if (this.reasoningItems.length === 0) return undefined;
    const reasoning: Reasoning = { format: "openai-responses", items: this.reasoningItems };
    if (Object.keys(this.itemIds).length > 0) reasoning.itemIds = this.itemIds;
    return reasoning;
  }
}

function stringField(record: Record<string, unknown>, key: string): string {
  const value = record[key];
  return typeof value === "string" ? value : "";
}

function messageText(item: Record<string, unknown>): string {
  const parts = Array.isArray(item.content) ? item.content : [];
  let text = "";
  for (const part of parts) {
    const p = asRecord(part);
    if (p?.type === "output_text" && typeof p.text === "string") text += p.text;
    else if (p?.type === "refusal" && typeof p.refusal === "string") text += p.refusal;
  }
  return text;
}

function mapUsage(value: unknown): Usage | null {
  const u = asRecord(value);
  if (!u) return null;
  const input = asNumber(u.input_tokens);
  const output = asNumber(u.output_tokens);
  if (input === undefined && output === undefined) return null;
  const usage: Usage = {
    inputTokens: input ?? 0,
    outputTokens: output ?? 0,
    cachedInputTokens: asNumber(asRecord(u.input_tokens_details)?.cached_tokens) ?? 0,
    cacheWriteTokens: 0,
    estimated: false,
  };
  const reasoning = asNumber(asRecord(u.output_tokens_details)?.reasoning_tokens);
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/** An error the API reported in the stream (`error` events, `response.failed`). */
function reportedError(value: unknown): DecodeResult {
  const err = asRecord(value) ?? {};
  const code = typeof err.code === "string" ? err.code : typeof err.type === "string" ? err.type : "error";
  const text = typeof err.message === "string" ? err.message : code;
  if (/rate_limit/.test(code)) return reported("rate_limited", true, code, text);
  if (/server_error|overloaded|internal|unavailable|timeout/.test(code))
    return reported("server", true, code, text);
  return reported("bad_request", false, code, text);
}

/** The end of an answer from its final response object: completed, incomplete (with why) or failed. */
function finalResult(output: Output, response: Record<string, unknown>): DecodeResult {
  const status = typeof response.status === "string" ? response.status : "completed";
  if (status === "failed") return reportedError(response.error);
  if (status === "in_progress" || status === "queued") {
    // Only a finished response is an answer; this one never said how it ended.
    return streamFailure(`the response ended while still ${status.replace("_", " ")}`);
  }
  let stopReason = status;
  if (status === "incomplete") {
    const reason = asRecord(response.incomplete_details)?.reason;
    stopReason = typeof reason === "string" ? reason : "incomplete";
  }
  const value = output.assembly.decoded(stopReason, mapUsage(response.usage));
  const reasoning = output.reasoning();
  if (reasoning) value.reasoning = reasoning;
  return { ok: true, value };
}

export async function* decodeResponsesStream(
  events: AsyncIterable<SseEvent>,
): AsyncGenerator<DeltaEvent, DecodeResult> {
  const output = new Output();
  /** Output indexes seen finished, so the final response's list fills in only what was missed. */
  const finished = new Set<number>();
  for await (const event of events) {
    if (event.data.trim() === "" || event.data.trim() === "[DONE]") continue;
    const data = eventRecord(event.data);
    if (!data) return malformed("stream event");
    const type = typeof data.type === "string" ? data.type : event.event;
    const outputIndex = asNumber(data.output_index) ?? -1;
    const delta = typeof data.delta === "string" ? data.delta : "";
    switch (type) {
      case "response.output_item.added": {
        const item = asRecord(data.item);
        if (item?.type === "function_call") {
          const ev = output.startCall(outputIndex, item);
          if (ev) yield ev;
        }
        break;
      }
      case "response.function_call_arguments.delta": {
        const ev = output.addArguments(outputIndex, delta);
        if (ev) yield ev;
        break;
      }
      case "response.output_text.delta":
      case "response.refusal.delta": {
        const ev = output.addText(outputIndex, delta);
        if (ev) yield ev;
        break;
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        if (delta) yield { type: "reasoning", delta };
        break;
      case "response.output_item.done": {
        const item = asRecord(data.item);
        if (!item) return malformed("output item");
        finished.add(outputIndex);
        yield* output.finish(outputIndex, item);
        break;
      }
      case "response.completed":
      case "response.incomplete":
      case "response.failed": {
        const response = asRecord(data.response) ?? {};
        const items = Array.isArray(response.output) ? response.output : [];
        for (const [index, raw] of items.entries()) {
          const item = asRecord(raw);
          if (item && !finished.has(index)) yield* output.finish(index, item);
        }
        return finalResult(output, response);
      }
      case "error":
        return reportedError(asRecord(data.error) ?? data);
      default:
        break;
    }
  }
  return streamFailure("the stream ended before response.completed");
}

export function decodeResponsesJson(json: unknown): DecodeResult {
  const response = asRecord(json);
  if (!response) return malformed("response");
  if (response.error !== undefined && response.error !== null && response.status !== "incomplete") {
    return reportedError(response.error);
  }
  if (!Array.isArray(response.output)) return malformed("response (no output)");
  const output = new Output();
  for (const [index, raw] of response.output.entries()) {
    const item = asRecord(raw);
    // Deltas are replayed from the decoded answer by the caller; these generators only fill it in.
    if (item) for (const _ of output.finish(index, item));
  }
  return finalResult(output, response);
}
