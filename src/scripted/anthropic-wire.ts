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
  const message = messageJson(answer, [], null, 1);
  const frames = [
    frame("message_start", { type: "message_start", message }),
    frame("ping", { type: "ping" }),
  ];
  let index = 0;
  for (const block of thinkingBlocks(answer)) {
    if (block.type === "redacted_thinking") {
      frames.push(frame("content_block_start", { type: "content_block_start", index, content_block: block }));
    } else {
      const start = { type: "thinking", thinking: "", signature: "" };
      frames.push(frame("content_block_start", { type: "content_block_start", index, content_block: start }));
      for (const thinking of pieces(String(block.thinking), 16)) {
        const delta = { type: "thinking_delta", thinking };
        frames.push(frame("content_block_delta", { type: "content_block_delta", index, delta }));
      }
      const delta = { type: "signature_delta", signature: block.signature };
      frames.push(frame("content_block_delta", { type: "content_block_delta", index, delta }));
    }
    frames.push(frame("content_block_stop", { type: "content_block_stop", index }));
    index++;
  }
  if (answer.text !== "" || answer.toolCalls.length === 0) {
    frames.push(
      frame("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      }),
    );
    for (const text of pieces(answer.text, 16)) {
      frames.push(
        frame("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text },
        }),
      );
    }
    frames.push(frame("content_block_stop", { type: "content_block_stop", index }));
    index++;
  }
  for (const call of answer.toolCalls) {
    const block = { type: "tool_use", id: call.id, name: call.name, input: {} };
    frames.push(frame("content_block_start", { type: "content_block_start", index, content_block: block }));
    for (const partial_json of ["", ...pieces(call.arguments, 12)]) {
      const delta = { type: "input_json_delta", partial_json };
      frames.push(frame("content_block_delta", { type: "content_block_delta", index, delta }));
    }
    frames.push(frame("content_block_stop", { type: "content_block_stop", index }));
    index++;
  }
  const delta: Record<string, unknown> = {
    type: "message_delta",
    delta: { stop_reason: anthropicStopReason(answer), stop_sequence: null },
  };
  if (answer.usage) delta.usage = { output_tokens: answer.usage.output };
  frames.push(frame("message_delta", delta));
  frames.push(frame("message_stop", { type: "message_stop" }));
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

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
