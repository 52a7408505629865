// What a wire format (OpenAI chat-completions, Anthropic messages) must provide to the shared HTTP loop,
// plus the assembly of streamed text and tool calls that both decoders share.

import { asRecord, parseJson } from "../config/records.js";
import { type Failure, refusalKind, serverLine } from "./errors.js";
import type { SseEvent } from "./sse.js";
import { reasoningText } from "./thinking.js";
import type {
  ModelErrorKind,
  ModelRequest,
  Reasoning,
  StreamEvent,
  ThinkingLevel,
  ToolCall,
  Usage,
} from "./types.js";

export type DeltaEvent = Extract<
  StreamEvent,
  { type: "text" | "tool_call_start" | "tool_call_delta" | "reasoning" }
>;

/** One complete answer as decoded from the wire, before cost accounting. */
export interface Decoded {
  text: string;
  toolCalls: ToolCall[];
  stopReason: string;
  /** null when the server reported no usage at all. */
  usage: Usage | null;
  /** Reasoning to send back with the answer (Responses reasoning items, Anthropic thinking blocks). */
  reasoning?: Reasoning;
}

export type DecodeResult = { ok: true; value: Decoded } | { ok: false; failure: Failure };

export interface BodySettings {
  model: string;
  baseUrl: string;
  stream: boolean;
  acceptsImages: boolean;
  maxOutputTokens?: number;
  thinking?: ThinkingLevel;
  /** The model reasons (OpenAI reasoning models): it takes an effort, and Responses asks for its reasoning. */
  reasoningModel: boolean;
  /** Responses: ask for reasoning summaries (ClientOptions.reasoningSummary). */
  reasoningSummary?: boolean;
  promptCacheKey?: string;
  /** ClientOptions.systemPreamble: a system block before the request's own (Anthropic). */
  systemPreamble?: string;
}

export interface WireFormat {
  endpoint(baseUrl: string): string;
  headers(apiKey: string | undefined): Record<string, string>;
  /** Deterministic JSON with `messages` as the last key, so successive bodies extend each other. */
  body(request: ModelRequest, settings: BodySettings): string;
  /** What the body leaves out of the request that the caller should know of (journaled as warnings). */
  notices?(request: ModelRequest, settings: BodySettings): string[];
  decodeStream(events: AsyncIterable<SseEvent>): AsyncGenerator<DeltaEvent, DecodeResult>;
  decodeJson(json: unknown): DecodeResult;
}

export function trimSlashes(url: string): string {
  return url.replace(/\/+$/, "");
}

/** OpenAI's headers (chat completions and Responses): JSON, and the key as a Bearer token. */
export function bearerHeaders(apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

export class Assembly {
  text = "";
  readonly toolCalls: ToolCall[] = [];

  addText(delta: string): DeltaEvent | undefined {
    if (!delta) return undefined;
    this.text += delta;
    return { type: "text", delta };
  }

  startToolCall(id: string, name: string): { index: number; event: DeltaEvent } {
    const index = this.toolCalls.length;
    this.toolCalls.push({ id, name, arguments: "" });
    return { index, event: { type: "tool_call_start", index, id, name } };
  }

  addArguments(index: number, delta: string): DeltaEvent | undefined {
    const call = this.toolCalls[index];
    if (!call || !delta) return undefined;
    call.arguments += delta;
    return { type: "tool_call_delta", index, delta };
  }

  decoded(stopReason: string, usage: Usage | null): Decoded {
    return { text: this.text, toolCalls: this.toolCalls, stopReason, usage };
  }
}

/** The delta events a streaming client would have seen, for answers that arrived as one JSON document. */
export function* replayDeltas(decoded: Decoded): Generator<DeltaEvent> {
  const thinking = reasoningText(decoded.reasoning);
  if (thinking) yield { type: "reasoning", delta: thinking };
  if (decoded.text) yield { type: "text", delta: decoded.text };
  for (const [index, call] of decoded.toolCalls.entries()) {
    yield { type: "tool_call_start", index, id: call.id, name: call.name };
    if (call.arguments) yield { type: "tool_call_delta", index, delta: call.arguments };
  }
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The JSON object a streamed event carries; undefined when it is not one. */
export function eventRecord(data: string): Record<string, unknown> | undefined {
  return asRecord(parseJson(data));
}

/** A stream that broke off or came garbled: this try failed, and another may not. */
export function streamFailure(message: string): DecodeResult {
  return { ok: false, failure: { kind: "stream", retryable: true, message } };
}

export function malformed(what: string): DecodeResult {
  return streamFailure(`the server sent a malformed ${what}`);
}

/**
 * An error the API reported in its answer (`what` is its type or code), as the failure of this try. A
 * refusal that says the prompt is too long for the model's window is that (the agent compacts for it).
 */
export function reported(kind: ModelErrorKind, retryable: boolean, what: string, text: string): DecodeResult {
  const refused = kind === "bad_request" ? refusalKind(`${what} ${text}`) : kind;
  return {
    ok: false,
    failure: { kind: refused, retryable, message: `the server reported ${what}: ${serverLine(text)}` },
  };
}
