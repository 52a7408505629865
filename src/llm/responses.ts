// OpenAI's Responses API (POST /v1/responses), stateless: `store: false`, and each answer's reasoning
// items (encrypted) sent back with it in later requests, so a reasoning model keeps its train of thought
// across the tool loop without OpenAI keeping the conversation. Bodies are built so that each request
// is a byte extension of the previous one (`input` last, every item serialised from its own message).

import { hostOf } from "../config/base-url.js";
import { dataUrl, flattenToText, serializeWithToolRuns } from "./content.js";
import { decodeResponsesJson, decodeResponsesStream } from "./responses-decode.js";
import { openaiEffort } from "./thinking.js";
import type { AssistantMessage, ContentPart, Message, ModelRequest, ToolResultMessage } from "./types.js";
import { type BodySettings, bearerHeaders, trimSlashes, type WireFormat } from "./wire.js";

export const responsesWire: WireFormat = {
  endpoint: (baseUrl) => `${trimSlashes(baseUrl)}/responses`,
  headers: bearerHeaders,
  body: buildResponsesBody,
  decodeStream: decodeResponsesStream,
  decodeJson: decodeResponsesJson,
};

export function buildResponsesBody(request: ModelRequest, settings: BodySettings): string {
  const head: Record<string, unknown> = { model: settings.model };
  if (request.system) head.instructions = request.system;
  if (settings.stream) head.stream = true;
  // Nothing is kept at OpenAI: the conversation (reasoning included) travels in every request.
  head.store = false;
  if (settings.reasoningModel) {
    // Without store, the reasoning comes back only encrypted, and only when asked for.
    head.include = ["reasoning.encrypted_content"];
    const effort = openaiEffort(settings.thinking, true);
    const reasoning: Record<string, string> = effort ? { effort } : {};
    // Summaries only when asked for: unverified organizations get a 400 for them.
    if (settings.reasoningSummary) reasoning.summary = "auto";
    if (Object.keys(reasoning).length > 0) head.reasoning = reasoning;
  }
  // ChatGPT's Codex backend (subscriptions) refuses the field and keeps its own output limit.
  if (settings.maxOutputTokens !== undefined && hostOf(settings.baseUrl) !== "chatgpt.com") {
    head.max_output_tokens = settings.maxOutputTokens;
  }
  if (settings.promptCacheKey) head.prompt_cache_key = settings.promptCacheKey;
  if (request.tools.length > 0) {
    head.tools = request.tools.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      // Responses defaults to strict schemas, which need every property required; relm's are not.
      strict: false,
    }));
  }
  const input = serializeInput(request.messages, settings.acceptsImages);
  return `${JSON.stringify(head).slice(0, -1)},"input":[${input.join(",")}]}`;
}

function serializeInput(messages: readonly Message[], acceptsImages: boolean): string[] {
  const item = (m: Exclude<Message, ToolResultMessage>) =>
    m.role === "assistant"
      ? assistantItems(m)
      : [JSON.stringify({ type: "message", role: "user", content: userContent(m.content, acceptsImages) })];
  return serializeWithToolRuns(messages, acceptsImages, item, {
    result: (m, output) => ({ type: "function_call_output", call_id: m.toolCallId, output }),
    text: (text) => ({ type: "input_text", text }),
    image: (image_url) => ({ type: "input_image", image_url }),
    userMessage: (content) => ({ type: "message", role: "user", content }),
  });
}

/**
 * The answer's output items in the order the API produced them: reasoning, the message, the function
 * calls. Reasoning items are spliced in as received; the message and calls keep their item ids, which
 * the API pairs each reasoning item with.
 */
function assistantItems(m: AssistantMessage): string[] {
  const out: string[] = [];
  const reasoning = m.reasoning?.format === "openai-responses" ? m.reasoning : undefined;
  // Reasoning must be followed by the item it led to; an answer cut off while still reasoning has none,
  // and its reasoning is left out (the same way in every request, so the prefix holds). So is an item
  // without encrypted content: with `store: false` OpenAI cannot find it by its id and refuses it.
  const followed = m.text !== "" || m.toolCalls.length > 0;
  for (const item of reasoning?.items ?? []) {
    if (followed && typeof item.encrypted_content === "string") out.push(JSON.stringify(item));
  }
  const ids = reasoning?.itemIds ?? {};
  if (m.text !== "") {
    const messageId = ids.message;
    out.push(
      JSON.stringify(
        messageId
          ? {
              type: "message",
              role: "assistant",
              content: [{ type: "output_text", text: m.text, annotations: [] }],
              status: "completed",
              id: messageId,
            }
          : { type: "message", role: "assistant", content: [{ type: "output_text", text: m.text }] },
      ),
    );
  }
  for (const call of m.toolCalls) {
    const item: Record<string, unknown> = {
      type: "function_call",
      call_id: call.id,
      name: call.name,
      // The model's own text, verbatim: re-serialising could change bytes and miss the cache.
      arguments: call.arguments,
    };
    const id = ids[call.id];
    if (id) item.id = id;
    out.push(JSON.stringify(item));
  }
  return out;
}

function userContent(parts: readonly ContentPart[], acceptsImages: boolean): unknown[] {
  if (!acceptsImages || parts.every((p) => p.type === "text")) {
    return [{ type: "input_text", text: flattenToText(parts) }];
  }
  return parts.map((p) =>
    p.type === "text" ? { type: "input_text", text: p.text } : { type: "input_image", image_url: dataUrl(p) },
  );
}
