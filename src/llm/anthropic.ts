// Anthropic messages. Prompt caching needs two markers: one on the system block (covers tools + system) and
// one on the last block of the last message; the second moves forward with every request.

import { asRecord, parseJson } from "../config/records.js";
import { type ThinkingToSend, thinkingNotice, thinkingToSend } from "./anthropic-thinking.js";
import { imagePlaceholder } from "./content.js";
import type { SseEvent } from "./sse.js";
import { anthropicMaxTokens, anthropicThinkingBudget } from "./thinking.js";
import type { ContentPart, Message, ModelRequest, Reasoning, ToolCall, Usage } from "./types.js";
import {
  Assembly,
  asNumber,
  type BodySettings,
  type DecodeResult,
  type DeltaEvent,
  eventRecord,
  malformed,
  reported,
  streamFailure,
  trimSlashes,
  type WireFormat,
} from "./wire.js";

const ANTHROPIC_VERSION = "2023-06-01";
const CACHE_MARKER = '"cache_control":{"type":"ephemeral"}';

export const anthropicWire: WireFormat = {
  notices(request, settings) {
    const budget = anthropicThinkingBudget(settings.thinking, anthropicMaxTokensFor(settings));
    const notice = thinkingNotice(thinkingToSend(request.messages, budget !== undefined));
    return notice ? [notice] : [];
  },
  endpoint(baseUrl) {
    const base = trimSlashes(baseUrl);
    return base.endsWith("/v1") ? `${base}/messages` : `${base}/v1/messages`;
  },
  headers(apiKey) {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "anthropic-version": ANTHROPIC_VERSION,
    };
    if (apiKey) headers["x-api-key"] = apiKey;
    return headers;
  },
  body: buildAnthropicBody,
  decodeStream: decodeAnthropicStream,
  decodeJson: decodeAnthropicJson,
};

/** Older models reject a max_tokens above their output limit. */
export function defaultMaxTokens(model: string): number {
  if (/claude-3-(haiku|opus|sonnet)/.test(model)) return 4096;
  if (/claude-3-5/.test(model)) return 8192;
  return 16384;
}

/** max_tokens of a request: the cap asked for, else relm's usual ask for the model and its thinking. */
function anthropicMaxTokensFor(settings: BodySettings): number {
  const usual = defaultMaxTokens(settings.model);
  return settings.maxOutputTokens ?? anthropicMaxTokens(settings.model, settings.thinking, usual);
}

function buildAnthropicBody(request: ModelRequest, settings: BodySettings): string {
  const maxTokens = anthropicMaxTokensFor(settings);
  const head: Record<string, unknown> = { model: settings.model, max_tokens: maxTokens };
  // Extended thinking: its budget counts against max_tokens. relm sends no temperature, which thinking
  // requires (only the default 1 is allowed with it).
  const thinkingBudget = anthropicThinkingBudget(settings.thinking, maxTokens);
  const thinking = thinkingToSend(request.messages, thinkingBudget !== undefined);
  if (thinkingBudget !== undefined && !thinking.thinkingOff) {
    head.thinking = { type: "enabled", budget_tokens: thinkingBudget };
  }
  if (settings.stream) head.stream = true;
  if (request.system) {
    head.system = [{ type: "text", text: request.system, cache_control: { type: "ephemeral" } }];
  }
  // A constant block first (a subscription's required identity line), so the cached prefix stays stable.
  if (settings.systemPreamble) {
    head.system = [{ type: "text", text: settings.systemPreamble }, ...((head.system as unknown[]) ?? [])];
  }
  if (request.tools.length > 0) {
    head.tools = request.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters,
    }));
  }
  const turns = groupTurns(request.messages, settings.acceptsImages, thinking);
  const last = turns[turns.length - 1];
  if (last) {
    // Added as the block's final key, so deleting `,"cache_control":{...}` restores the unmarked bytes.
    const i = last.blocks.length - 1;
    last.blocks[i] = `${last.blocks[i]?.slice(0, -1)},${CACHE_MARKER}}`;
  }
  const messages = turns.map((t) => `{"role":"${t.role}","content":[${t.blocks.join(",")}]}`);
  return `${JSON.stringify(head).slice(0, -1)},"messages":[${messages.join(",")}]}`;
}

interface Turn {
  role: "user" | "assistant";
  /** Serialised content blocks. */
  blocks: string[];
}

/**
 * Anthropic requires alternating roles: tool results and user text that follow each other share a turn.
 * With thinking on, an answer's thinking blocks go first, as received (their signatures must verify;
 * anthropic-thinking.ts leaves out those that cannot); with it off they are left out, which the API allows.
 */
function groupTurns(messages: readonly Message[], acceptsImages: boolean, thinking: ThinkingToSend): Turn[] {
  const turns: Turn[] = [];
  for (const [i, m] of messages.entries()) {
    const role = m.role === "assistant" ? "assistant" : "user";
    let turn = turns[turns.length - 1];
    if (!turn || turn.role !== role) {
      turn = { role, blocks: [] };
      turns.push(turn);
    }
    if (m.role === "user") {
      for (const block of contentBlocks(m.content, acceptsImages)) turn.blocks.push(JSON.stringify(block));
    } else if (m.role === "tool") {
      const content = contentBlocks(m.content, acceptsImages);
      turn.blocks.push(
        JSON.stringify({
          type: "tool_result",
          tool_use_id: m.toolCallId,
          content: content.length > 0 ? content : [{ type: "text", text: "(no output)" }],
        }),
      );
    } else {
      for (const block of thinking.blocks.get(i) ?? []) turn.blocks.push(JSON.stringify(block));
      if (m.text) turn.blocks.push(JSON.stringify({ type: "text", text: m.text }));
      for (const call of m.toolCalls) turn.blocks.push(toolUseBlock(call));
    }
  }
  for (const turn of turns) {
    // Empty text blocks and empty turns are rejected by the API.
    if (turn.blocks.length === 0) turn.blocks.push(JSON.stringify({ type: "text", text: "(no content)" }));
  }
  return turns;
}

/** The model's own argument text is spliced in verbatim: re-serialising could change bytes and miss the cache. */
function toolUseBlock(call: ToolCall): string {
  const raw = call.arguments.trim() === "" ? "{}" : call.arguments;
  const head = `{"type":"tool_use","id":${JSON.stringify(call.id)},"name":${JSON.stringify(call.name)},"input":`;
  // `input` must be an object; otherwise keep what the model wrote so it can see its own mistake.
  const input = asRecord(parseJson(raw)) ? raw : JSON.stringify({ invalid_json: call.arguments });
  return `${head}${input}}`;
}

function contentBlocks(parts: readonly ContentPart[], acceptsImages: boolean): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  for (const p of parts) {
    if (p.type === "text") {
      if (p.text !== "") blocks.push({ type: "text", text: p.text });
    } else if (acceptsImages) {
      blocks.push({ type: "image", source: { type: "base64", media_type: p.mimeType, data: p.data } });
    } else {
      blocks.push({ type: "text", text: imagePlaceholder(p) });
    }
  }
  return blocks;
}

function mergeUsage(previous: Usage | null, value: unknown): Usage | null {
  const u = asRecord(value);
  if (!u) return previous;
  const input = asNumber(u.input_tokens);
  const output = asNumber(u.output_tokens);
  const read = asNumber(u.cache_read_input_tokens);
  const write = asNumber(u.cache_creation_input_tokens);
  if (input === undefined && output === undefined && read === undefined && write === undefined)
    return previous;
  // message_delta repeats only what changed; keep the rest from message_start.
  const cachedInputTokens = read ?? previous?.cachedInputTokens ?? 0;
  const cacheWriteTokens = write ?? previous?.cacheWriteTokens ?? 0;
  const previousRaw = previous
    ? previous.inputTokens - previous.cachedInputTokens - previous.cacheWriteTokens
    : 0;
  return {
    inputTokens: (input ?? previousRaw) + cachedInputTokens + cacheWriteTokens,
    outputTokens: output ?? previous?.outputTokens ?? 0,
    cachedInputTokens,
    cacheWriteTokens,
    estimated: false,
  };
}

function streamError(value: unknown): DecodeResult {
  const err = asRecord(asRecord(value)?.error) ?? asRecord(value) ?? {};
  const type = typeof err.type === "string" ? err.type : "api_error";
  const text = typeof err.message === "string" ? err.message : type;
  if (type === "overloaded_error" || type === "api_error") return reported("server", true, type, text);
  if (type === "rate_limit_error") return reported("rate_limited", true, type, text);
  return reported("bad_request", false, type, text);
}

async function* decodeAnthropicStream(
  events: AsyncIterable<SseEvent>,
): AsyncGenerator<DeltaEvent, DecodeResult> {
  const assembly = new Assembly();
  const toolByBlock = new Map<number, number>();
  const thinking = new Thinking();
  let usage: Usage | null = null;
  let stopReason: string | undefined;
  let complete = false;

  for await (const event of events) {
    if (event.data.trim() === "") continue;
    const data = eventRecord(event.data);
    if (!data) return malformed("stream event");
    const type = typeof data.type === "string" ? data.type : event.event;
    if (type === "message_start") {
      usage = mergeUsage(usage, asRecord(data.message)?.usage);
    } else if (type === "content_block_start") {
      const block = asRecord(data.content_block) ?? {};
      const blockIndex = asNumber(data.index) ?? -1;
      if (block.type === "tool_use") {
        const started = startToolUse(assembly, block);
        toolByBlock.set(blockIndex, started.index);
        yield started.event;
      } else if (block.type === "text" && typeof block.text === "string") {
        const ev = assembly.addText(block.text);
        if (ev) yield ev;
      } else if (block.type === "thinking" || block.type === "redacted_thinking") {
        const text = thinking.start(blockIndex, block);
        if (text) yield { type: "reasoning", delta: text };
      }
    } else if (type === "content_block_delta") {
      const delta = asRecord(data.delta) ?? {};
      if (delta.type === "thinking_delta" || delta.type === "signature_delta") {
        const text = thinking.add(asNumber(data.index) ?? -1, delta);
        if (text) yield { type: "reasoning", delta: text };
      } else if (delta.type === "text_delta" && typeof delta.text === "string") {
        const ev = assembly.addText(delta.text);
        if (ev) yield ev;
      } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
        const index = toolByBlock.get(asNumber(data.index) ?? -1);
        const ev = index === undefined ? undefined : assembly.addArguments(index, delta.partial_json);
        if (ev) yield ev;
      }
    } else if (type === "content_block_stop") {
      const index = toolByBlock.get(asNumber(data.index) ?? -1);
      // A tool without arguments streams no JSON at all; its input is still an object.
      if (index !== undefined && assembly.toolCalls[index]?.arguments === "") {
        const ev = assembly.addArguments(index, "{}");
        if (ev) yield ev;
      }
    } else if (type === "message_delta") {
      const delta = asRecord(data.delta);
      if (typeof delta?.stop_reason === "string") stopReason = delta.stop_reason;
      usage = mergeUsage(usage, data.usage);
    } else if (type === "message_stop") {
      complete = true;
      break;
    } else if (type === "error") {
      return streamError(data);
    }
  }
  if (!complete) return streamFailure("the stream ended before message_stop");
  const value = assembly.decoded(stopOf(stopReason, assembly), usage);
  const reasoning = thinking.reasoning();
  if (reasoning) value.reasoning = reasoning;
  return { ok: true, value };
}

/** Thinking and redacted_thinking blocks as they stream, by content block index, in order. */
class Thinking {
  private readonly blocks = new Map<number, Record<string, unknown>>();

  /** Returns the block's readable text so far, if any. */
  start(index: number, block: Record<string, unknown>): string {
    const copy = { ...block };
    if (copy.type === "thinking") {
      if (typeof copy.thinking !== "string") copy.thinking = "";
      if (typeof copy.signature !== "string") copy.signature = "";
    }
    this.blocks.set(index, copy);
    return typeof copy.thinking === "string" ? copy.thinking : "";
  }

  /** A thinking_delta or signature_delta; returns new readable text. */
  add(index: number, delta: Record<string, unknown>): string {
    const block = this.blocks.get(index);
    if (!block) return "";
    if (delta.type === "thinking_delta" && typeof delta.thinking === "string") {
      block.thinking = `${block.thinking ?? ""}${delta.thinking}`;
      return delta.thinking;
    }
    if (delta.type === "signature_delta" && typeof delta.signature === "string") {
      block.signature = `${block.signature ?? ""}${delta.signature}`;
    }
    return "";
  }

  reasoning(): Reasoning | undefined {
    if (this.blocks.size === 0) return undefined;
    const items = [...this.blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, block]) => block);
    return { format: "anthropic", items };
  }
}

/** A tool_use block's call, started in the assembly (an id made up when the block has none). */
function startToolUse(assembly: Assembly, block: Record<string, unknown>) {
  const id = typeof block.id === "string" ? block.id : `toolu_${assembly.toolCalls.length}`;
  return assembly.startToolCall(id, typeof block.name === "string" ? block.name : "");
}

/** The stop_reason the API gave, else the one the answer implies. */
function stopOf(given: unknown, assembly: Assembly): string {
  if (typeof given === "string") return given;
  return assembly.toolCalls.length > 0 ? "tool_use" : "end_turn";
}

function decodeAnthropicJson(json: unknown): DecodeResult {
  const response = asRecord(json);
  if (!response) return malformed("response");
  if (response.type === "error") return streamError(response);
  if (!Array.isArray(response.content)) return malformed("response (no content)");
  // A whole message always has a stop_reason; one with neither it nor content is no answer.
  if (typeof response.stop_reason !== "string" && response.content.length === 0) {
    return malformed("response (no content and no stop_reason)");
  }
  const assembly = new Assembly();
  const thinkingBlocks: Record<string, unknown>[] = [];
  for (const item of response.content) {
    const block = asRecord(item);
    if (block?.type === "thinking" || block?.type === "redacted_thinking") thinkingBlocks.push(block);
    else if (block?.type === "text" && typeof block.text === "string") assembly.addText(block.text);
    else if (block?.type === "tool_use") {
      const { index } = startToolUse(assembly, block);
      assembly.addArguments(index, JSON.stringify(block.input ?? {}));
    }
  }
  const value = assembly.decoded(stopOf(response.stop_reason, assembly), mergeUsage(null, response.usage));
  if (thinkingBlocks.length > 0) value.reasoning = { format: "anthropic", items: thinkingBlocks };
  return { ok: true, value };
}
