// OpenAI chat-completions responses as the real API writes them.

import { type Answer, pieces } from "./answer.js";

function openaiFinishReason(answer: Answer): string {
  if (answer.truncated) return "length";
  return answer.toolCalls.length > 0 ? "tool_calls" : "stop";
}

function usageJson(answer: Answer): Record<string, unknown> | undefined {
  const u = answer.usage;
  if (!u) return undefined;
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cached },
  };
}

/** SSE frames, each a complete `data: ...\n\n`. */
export function openaiStreamFrames(answer: Answer, includeUsage: boolean): string[] {
  const base = { id: answer.id, object: "chat.completion.chunk", created: 0, model: answer.model };
  const withUsage = includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    frame({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...withUsage });

  const frames = [chunk({ role: "assistant", content: "" })];
  for (const piece of pieces(answer.text, 16)) frames.push(chunk({ content: piece }));
  answer.toolCalls.forEach((call, index) => {
    frames.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    );
    for (const piece of pieces(call.arguments, 12)) {
      frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  frames.push(chunk({}, openaiFinishReason(answer)));
  const usage = usageJson(answer);
  if (includeUsage && usage) frames.push(frame({ ...base, choices: [], usage }));
  frames.push("data: [DONE]\n\n");
  return frames;
}

/**
 * A stream that closes cleanly with `[DONE]` but never names a finish reason: the text (if any) in
 * chunks without one, or, with no text, only chunks whose `choices` is empty — as some proxies send.
 */
export function openaiUnfinishedFrames(answer: Answer, includeUsage: boolean): string[] {
  const base = { id: answer.id, object: "chat.completion.chunk", created: 0, model: answer.model };
  const frames: string[] = [];
  if (answer.text === "") frames.push(frame({ ...base, choices: [] }));
  for (const piece of pieces(answer.text, 16)) {
    frames.push(
      frame({
        ...base,
        choices: [{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }],
      }),
    );
  }
  const usage = usageJson(answer);
  if (includeUsage && usage) frames.push(frame({ ...base, choices: [], usage }));
  frames.push("data: [DONE]\n\n");
  return frames;
}

/** A whole response with these choices, and the usage when the server reports usage. */
function completionJson(answer: Answer, choices: unknown[]): string {
  const body: Record<string, unknown> = {
    id: answer.id,
    object: "chat.completion",
    created: 0,
    model: answer.model,
    choices,
  };
  const usage = usageJson(answer);
  if (usage) body.usage = usage;
  return JSON.stringify(body);
}

/** A whole response with no choice in it. */
export function openaiUnfinishedJson(answer: Answer): string {
  return completionJson(answer, []);
}

export function openaiJson(answer: Answer): string {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: answer.text === "" ? null : answer.text,
  };
  if (answer.toolCalls.length > 0) {
    message.tool_calls = answer.toolCalls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return completionJson(answer, [
    { index: 0, message, logprobs: null, finish_reason: openaiFinishReason(answer) },
  ]);
}

export function openaiError(message: string, type: string, code: string | null = null): string {
  return JSON.stringify({ error: { message, type, param: null, code } });
}

function frame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}
