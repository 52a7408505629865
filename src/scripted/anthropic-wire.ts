// Anthropic messages responses as the real API writes them.

import { asRecord, parseJson } from "../config/records.js";
import { type Answer, pieces } from "./answer.js";

function anthropicStopReason(answer: Answer): string {
  if (answer.truncated) return "max_tokens";
  return answer.toolCalls.length > 0 ? "tool_use" : "end_turn";
}

/** Anthropic's input_tokens excludes cache reads; the total is their sum. */
function usageJson(answer: Answer, outputTokens: number): Record<string, unknown> | undefined {
  const u = answer.usage;
  if (!u) return undefined;
  return {
    input_tokens: u.input - u.cached,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: u.cached,
    output_tokens: outputTokens,
  };
}

/** A message object as the API writes it, with the usage when the server reports usage. */
function messageJson(
  answer: Answer,
  content: unknown[],
  stopReason: string | null,
  outputTokens: number,
): Record<string, unknown> {
  const message: Record<string, unknown> = {
    id: answer.id,
    type: "message",
    role: "assistant",
    model: answer.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
  };
  const usage = usageJson(answer, outputTokens);
  if (usage) message.usage = usage;
  return message;
}

export function anthropicStreamFrames(answer: Answer): string[] {
  const frames = [frame("message_start", { message: messageJson(answer, [], null, 1) }), frame("ping")];
  let index = 0;
  /** One content block: its start, its deltas, its stop. */
  const block = (content_block: unknown, deltas: Record<string, unknown>[]) => {
    frames.push(frame("content_block_start", { index, content_block }));
    for (const delta of deltas) frames.push(frame("content_block_delta", { index, delta }));
    frames.push(frame("content_block_stop", { index }));
    index++;
  };
  for (const thought of thinkingBlocks(answer)) {
    if (thought.type === "redacted_thinking") block(thought, []);
    else
      block({ type: "thinking", thinking: "", signature: "" }, [
        ...pieces(String(thought.thinking), 16).map((thinking) => ({ type: "thinking_delta", thinking })),
        { type: "signature_delta", signature: thought.signature },
      ]);
  }
  if (answer.text !== "" || answer.toolCalls.length === 0) {
    const deltas = pieces(answer.text, 16).map((text) => ({ type: "text_delta", text }));
    block({ type: "text", text: "" }, deltas);
  }
  for (const call of answer.toolCalls) {
    const json = ["", ...pieces(call.arguments, 12)];
    const deltas = json.map((partial_json) => ({ type: "input_json_delta", partial_json }));
    block({ type: "tool_use", id: call.id, name: call.name, input: {} }, deltas);
  }
  const delta: Record<string, unknown> = {
    delta: { stop_reason: anthropicStopReason(answer), stop_sequence: null },
  };
  if (answer.usage) delta.usage = { output_tokens: answer.usage.output };
  frames.push(frame("message_delta", delta), frame("message_stop"));
  return frames;
}

/** Every frame of the answer but `message_stop`: the stream closes cleanly without finishing. */
export function anthropicUnfinishedFrames(answer: Answer): string[] {
  return anthropicStreamFrames(answer).filter((f) => !f.startsWith("event: message_stop\n"));
}

/** A message with no content and no stop_reason, which a finished answer always has. */
export function anthropicUnfinishedJson(answer: Answer): string {
  return JSON.stringify(messageJson(answer, [], null, 0));
}

/** The answer's thinking and redacted_thinking blocks, as the API returns them whole. */
function thinkingBlocks(answer: Answer): Record<string, unknown>[] {
  const t = answer.thought;
  if (!t) return [];
  const blocks: Record<string, unknown>[] = [{ type: "thinking", thinking: t.text, signature: t.secret }];
  if (t.redacted !== undefined) blocks.push({ type: "redacted_thinking", data: t.redacted });
  return blocks;
}

export function anthropicJson(answer: Answer): string {
  const content: Record<string, unknown>[] = [...thinkingBlocks(answer)];
  if (answer.text !== "") content.push({ type: "text", text: answer.text });
  for (const call of answer.toolCalls) {
    content.push({ type: "tool_use", id: call.id, name: call.name, input: parseInput(call.arguments) });
  }
  return JSON.stringify(messageJson(answer, content, anthropicStopReason(answer), answer.usage?.output ?? 0));
}

/** The non-streaming API returns `input` parsed; text that is not a JSON object cannot be represented. */
function parseInput(raw: string): unknown {
  return asRecord(parseJson(raw)) ?? { invalid_json: raw };
}

export function anthropicError(message: string, type: string): string {
  return JSON.stringify({ type: "error", error: { type, message } });
}

/** An SSE frame of event `type`, its data `{type, ...fields}` as the API writes it (type first). */
function frame(type: string, fields: Record<string, unknown> = {}): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
}
