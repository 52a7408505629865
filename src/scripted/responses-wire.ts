// OpenAI Responses API answers as the real API writes them: streamed events (response.created, output
// items with their deltas, response.completed / incomplete / failed) or one response object.

import { type Answer, pieces } from "./answer.js";

/** The reasoning output item as the API returns it (encrypted_content only when it was asked for). */
export function reasoningItem(answer: Answer): Record<string, unknown> | undefined {
  const t = answer.thought;
  if (!t) return undefined;
  const item: Record<string, unknown> = {
    id: t.id,
    type: "reasoning",
    summary: t.text === "" ? [] : [{ type: "summary_text", text: t.text }],
  };
  if (t.encrypted) item.encrypted_content = t.secret;
  return item;
}

/** An SSE frame of event `type`, its data `{type, sequence_number, ...fields}` as the API writes it. */
function frame(type: string, sequence_number: number, fields: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number, ...fields })}\n\n`;
}

const outputText = (text: string) => ({ type: "output_text", annotations: [], text });

function messageItem(answer: Answer, status: "in_progress" | "completed"): Record<string, unknown> {
  const content = status === "completed" ? [outputText(answer.text)] : [];
  return { id: answer.itemIds?.message ?? "msg_0", type: "message", status, content, role: "assistant" };
}

function callItem(answer: Answer, index: number, done: boolean): Record<string, unknown> {
  const call = answer.toolCalls[index] as Answer["toolCalls"][number];
  return {
    id: answer.itemIds?.calls[call.id] ?? `fc_${index}`,
    type: "function_call",
    status: done ? "completed" : "in_progress",
    arguments: done ? call.arguments : "",
    call_id: call.id,
    name: call.name,
  };
}

function outputItems(answer: Answer): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const reasoning = reasoningItem(answer);
  if (reasoning) out.push(reasoning);
  if (answer.text !== "" || answer.toolCalls.length === 0) out.push(messageItem(answer, "completed"));
  for (let i = 0; i < answer.toolCalls.length; i++) out.push(callItem(answer, i, true));
  return out;
}

function usageJson(answer: Answer): Record<string, unknown> | null {
  const u = answer.usage;
  if (!u) return null;
  const reasoning = Math.ceil((answer.thought?.text.length ?? 0) / 4);
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cached },
    output_tokens: u.output + reasoning,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: u.input + u.output + reasoning,
  };
}

function responseObject(
  answer: Answer,
  status: "in_progress" | "completed" | "incomplete" | "failed",
  output: Record<string, unknown>[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: answer.id,
    object: "response",
    created_at: 0,
    status,
    error: null,
    incomplete_details: null,
    model: answer.model,
    output,
    usage: status === "in_progress" ? null : usageJson(answer),
    ...extra,
  };
}

function finalStatus(answer: Answer): [status: "completed" | "incomplete", extra: Record<string, unknown>] {
  return answer.truncated
    ? ["incomplete", { incomplete_details: { reason: "max_output_tokens" } }]
    : ["completed", {}];
}

/**
 * Every event of the answer but the last (response.completed / response.incomplete): alone, a stream
 * that closes cleanly without saying the response ended.
 */
export function responsesUnfinishedFrames(answer: Answer): string[] {
  const frames: string[] = [];
  const event = (type: string, data: Record<string, unknown>) =>
    frames.push(frame(type, frames.length, data));
  event("response.created", { response: responseObject(answer, "in_progress", []) });
  event("response.in_progress", { response: responseObject(answer, "in_progress", []) });
  let index = 0;
  const reasoning = reasoningItem(answer);
  if (reasoning && answer.thought) {
    const item_id = answer.thought.id;
    event("response.output_item.added", { output_index: index, item: { ...reasoning, summary: [] } });
    if (answer.thought.text !== "") {
      const at = { item_id, output_index: index, summary_index: 0 };
      event("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } });
      for (const delta of pieces(answer.thought.text, 16))
        event("response.reasoning_summary_text.delta", { ...at, delta });
      event("response.reasoning_summary_text.done", { ...at, text: answer.thought.text });
      event("response.reasoning_summary_part.done", {
        ...at,
        part: { type: "summary_text", text: answer.thought.text },
      });
    }
    event("response.output_item.done", { output_index: index, item: reasoning });
    index++;
  }
  if (answer.text !== "" || answer.toolCalls.length === 0) {
    const item_id = answer.itemIds?.message ?? "msg_0";
    const at = { item_id, output_index: index, content_index: 0 };
    event("response.output_item.added", { output_index: index, item: messageItem(answer, "in_progress") });
    event("response.content_part.added", { ...at, part: outputText("") });
    for (const delta of pieces(answer.text, 16)) event("response.output_text.delta", { ...at, delta });
    event("response.output_text.done", { ...at, text: answer.text });
    event("response.content_part.done", { ...at, part: outputText(answer.text) });
    event("response.output_item.done", { output_index: index, item: messageItem(answer, "completed") });
    index++;
  }
  for (let i = 0; i < answer.toolCalls.length; i++, index++) {
    const started = callItem(answer, i, false);
    const at = { item_id: started.id, output_index: index };
    event("response.output_item.added", { output_index: index, item: started });
    for (const delta of pieces((answer.toolCalls[i] as { arguments: string }).arguments, 12))
      event("response.function_call_arguments.delta", { ...at, delta });
    const done = callItem(answer, i, true);
    event("response.function_call_arguments.done", { ...at, arguments: done.arguments });
    event("response.output_item.done", { output_index: index, item: done });
  }
  return frames;
}

export function responsesStreamFrames(answer: Answer): string[] {
  const frames = responsesUnfinishedFrames(answer);
  const [status, extra] = finalStatus(answer);
  const response = responseObject(answer, status, outputItems(answer), extra);
  frames.push(frame(`response.${status}`, frames.length, { response }));
  return frames;
}

/** The start of a response, then `response.failed` with the error. */
export function responsesFailedFrames(answer: Answer, code: string, message: string): string[] {
  const failed = responseObject(answer, "failed", [], { error: { code, message } });
  return [
    frame("response.created", 0, { response: responseObject(answer, "in_progress", []) }),
    frame("response.failed", 1, { response: failed }),
  ];
}

export function responsesJson(answer: Answer): string {
  const [status, extra] = finalStatus(answer);
  return JSON.stringify(responseObject(answer, status, outputItems(answer), extra));
}

/** A response object still in progress, with no output: what a non-streamed answer never is. */
export function responsesUnfinishedJson(answer: Answer): string {
  return JSON.stringify(responseObject(answer, "in_progress", []));
}

export function responsesFailedJson(answer: Answer, code: string, message: string): string {
  return JSON.stringify(responseObject(answer, "failed", [], { error: { code, message } }));
}
