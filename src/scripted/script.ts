// The script language of the scripted model: what a test or the demo says the "model" does next,
// and what it can look at in the request to decide.
import { asRecord } from "../config/records.js";

export type WireFormatName = "openai" | "responses" | "anthropic";

interface StepTiming {
  /** Wait this long before responding; default ScriptedModelOptions.latencyMs. */
  delayMs?: number;
}

/**
 * What the model thought before answering: a Responses reasoning item (its summary this text, its
 * encrypted_content made by the server) or, when the request enables thinking, an Anthropic thinking
 * block (signed by the server). Chat completions ignore it.
 */
interface StepReasoning {
  reasoning?: string;
  /** Anthropic: a redacted_thinking block with this data, after the thinking block. */
  redactedThinking?: string;
}

interface ScriptToolCall {
  name: string;
  /** Sent verbatim when a string (it may be any text, even invalid JSON); JSON-encoded when an object. */
  arguments: string | Record<string, unknown>;
}

export type ScriptStep =
  /** A final answer. */
  | ({ text: string; code?: undefined; toolCalls?: undefined } & StepTiming & StepReasoning)
  /** One call of the `ipython` tool with `{"code": ...}`, after optional text. */
  | ({ code: string; text?: string } & StepTiming & StepReasoning)
  | ({ toolCalls: ScriptToolCall[]; text?: string } & StepTiming & StepReasoning)
  /** An HTTP error; `body` defaults to the format's JSON error; `retryAfter` is in seconds. */
  | ({ status: number; body?: string; retryAfter?: number; headers?: Record<string, string> } & StepTiming)
  /**
   * The format's refusal of a prompt longer than the model's context window, as the real APIs word it
   * (HTTP 400): chat completions and Responses `context_length_exceeded`, Anthropic "prompt is too
   * long". `window`: the window it names (default 8 192, or less than the prompt's tokens).
   */
  | ({ tooLong: true; window?: number } & StepTiming)
  /** Part of a response, then the socket is destroyed with no terminal marker. */
  | ({ drop: true; text?: string } & StepTiming)
  /**
   * A response that ends cleanly but never finishes the answer: OpenAI chunks without a finish_reason
   * (with no text, chunks whose `choices` is empty) then `[DONE]`; Anthropic without `message_stop`.
   * Not streamed: OpenAI `choices: []`, Anthropic no content and no stop_reason.
   */
  | ({ unfinished: true; text?: string } & StepTiming)
  /**
   * A response that starts (HTTP 200) and then fails in the stream: Responses `response.failed`,
   * Anthropic an `error` event, OpenAI a chunk with `error`. `code` e.g. server_error (retried) or
   * invalid_prompt (not).
   */
  | ({ failed: { code: string; message: string } } & StepTiming)
  /**
   * Raw response text written as it is (HTTP 200, text/event-stream), piece by piece, then the response
   * ends: malformed or hostile streams, e.g. one 50 MB `data:` line.
   */
  | ({ raw: string[] } & StepTiming)
  /**
   * A streamed answer that never ends: one text delta of `text` (at most 16 characters; default
   * "and on and on ") written again and again until the client goes away or the server closes. Only
   * Anthropic's stream reports usage (the prompt's, at its start); nothing reports the output's.
   */
  | ({ endless: true; text?: string } & StepTiming);

export interface ScriptContext {
  /** 0-based number of this scripted request (requests rejected for auth or model are not counted). */
  index: number;
  body: unknown;
  rawBody: string;
  format: WireFormatName;
  /** Text of the last tool result in the request, for either format. */
  lastToolResult?: string;
  /** Text of the last user message that has text. */
  lastUserText?: string;
}

export type StepFunction = (ctx: ScriptContext) => ScriptStep | Promise<ScriptStep>;
export type ScriptItem = ScriptStep | StepFunction;

/** What a step becomes once normalised: the wire writers only see these. */
export type Reply =
  | {
      kind: "answer";
      text: string;
      toolCalls: { name: string; arguments: string }[];
      reasoning?: string;
      redactedThinking?: string;
    }
  | { kind: "failed"; code: string; message: string }
  | { kind: "status"; status: number; body?: string; retryAfter?: number; headers?: Record<string, string> }
  | { kind: "too_long"; window?: number }
  | { kind: "drop"; text: string }
  | { kind: "unfinished"; text: string }
  | { kind: "raw"; pieces: string[] }
  | { kind: "endless"; text: string };

export function toReply(step: ScriptStep): Reply {
  if ("status" in step && typeof step.status === "number") {
    return {
      kind: "status",
      status: step.status,
      body: step.body,
      retryAfter: step.retryAfter,
      headers: step.headers,
    };
  }
  if ("tooLong" in step && step.tooLong) return { kind: "too_long", window: step.window };
  if ("drop" in step && step.drop) {
    return { kind: "drop", text: step.text ?? "This answer is cut off in the middle of a sentence because" };
  }
  if ("failed" in step && step.failed) return { kind: "failed", ...step.failed };
  if ("raw" in step && Array.isArray(step.raw)) return { kind: "raw", pieces: step.raw };
  if ("endless" in step && step.endless) {
    const text = step.text ?? "and on and on ";
    if (text.length === 0 || text.length > 16)
      throw new Error("an endless step's text must be 1 to 16 characters");
    return { kind: "endless", text };
  }
  const text = "text" in step && typeof step.text === "string" ? step.text : "";
  if ("unfinished" in step && step.unfinished) return { kind: "unfinished", text };
  const thought: { reasoning?: string; redactedThinking?: string } = {};
  if ("reasoning" in step && typeof step.reasoning === "string") thought.reasoning = step.reasoning;
  if ("redactedThinking" in step && typeof step.redactedThinking === "string")
    thought.redactedThinking = step.redactedThinking;
  if ("code" in step && typeof step.code === "string") {
    return {
      kind: "answer",
      text,
      toolCalls: [{ name: "ipython", arguments: JSON.stringify({ code: step.code }) }],
      ...thought,
    };
  }
  if ("toolCalls" in step && Array.isArray(step.toolCalls)) {
    const toolCalls = step.toolCalls.map((c) => ({
      name: c.name,
      arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
    }));
    return { kind: "answer", text, toolCalls, ...thought };
  }
  if ("text" in step && typeof step.text === "string")
    return { kind: "answer", text, toolCalls: [], ...thought };
  throw new Error(`not a script step: ${JSON.stringify(step)}`);
}

/** Text of a content value that is a string or an array of blocks/parts of `type` with `text`. */
function textOf(content: unknown, type = "text"): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content
    .map((c) => asRecord(c))
    .filter((c) => c?.type === type && typeof c.text === "string")
    .map((c) => c?.text as string);
  return texts.length > 0 ? texts.join("\n") : undefined;
}

/** Responses input: `function_call_output` items and user messages of `input_text` parts. */
function describeResponsesInput(input: unknown): Pick<ScriptContext, "lastToolResult" | "lastUserText"> {
  const out: Pick<ScriptContext, "lastToolResult" | "lastUserText"> = {};
  if (!Array.isArray(input)) return out;
  for (const raw of input) {
    const item = asRecord(raw);
    if (item?.type === "function_call_output")
      out.lastToolResult = typeof item.output === "string" ? item.output : "";
    else if (item?.role === "user") {
      const text = textOf(item.content, "input_text");
      if (text !== undefined) out.lastUserText = text;
    }
  }
  return out;
}

export function describeRequest(
  format: WireFormatName,
  body: unknown,
): Pick<ScriptContext, "lastToolResult" | "lastUserText"> {
  if (format === "responses") return describeResponsesInput(asRecord(body)?.input);
  const messages = asRecord(body)?.messages;
  const out: Pick<ScriptContext, "lastToolResult" | "lastUserText"> = {};
  if (!Array.isArray(messages)) return out;
  for (const item of messages) {
    const m = asRecord(item);
    // OpenAI: a tool message; Anthropic: tool_result blocks of a user message.
    if (format === "openai" && m?.role === "tool") out.lastToolResult = textOf(m.content) ?? "";
    if (m?.role !== "user") continue;
    const text = textOf(m.content);
    if (text !== undefined) out.lastUserText = text;
    for (const block of format === "anthropic" && Array.isArray(m.content) ? m.content : []) {
      const b = asRecord(block);
      if (b?.type === "tool_result") out.lastToolResult = textOf(b.content) ?? "";
    }
  }
  return out;
}
