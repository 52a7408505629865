// The scripted server checks reasoning that comes back the way the real APIs do: a Responses reasoning
// item must be the one it handed out, unchanged (its encrypted_content is opaque and verified); an
// Anthropic thinking block must carry the signature made for its text; and with thinking on, the
// answer whose tool calls are being answered must start with its thinking. So a client that drops,
// reorders or edits reasoning fails a test instead of passing against a lenient fake.

import { asRecord } from "../config/records.js";
import type { Thought } from "./answer.js";
import { reasoningItem } from "./responses-wire.js";
import type { WireFormatName } from "./script.js";

/** The thoughts the server handed out, by reasoning item id (Responses) or thinking id (Anthropic). */
export type Thoughts = Map<string, Thought>;

/** Why the request must be refused (HTTP 400), or undefined when its reasoning is all genuine. */
export function checkReturnedThoughts(
  format: WireFormatName,
  fields: Record<string, unknown>,
  thoughts: Thoughts,
): string | undefined {
  if (format === "responses") return checkResponses(fields.input, fields.store === false, thoughts);
  if (format === "anthropic") return checkAnthropic(fields, thoughts);
  return undefined;
}

function checkResponses(input: unknown, stateless: boolean, thoughts: Thoughts): string | undefined {
  if (!Array.isArray(input)) return undefined;
  for (const [i, raw] of input.entries()) {
    const item = asRecord(raw);
    if (item?.type !== "reasoning") continue;
    const id = typeof item.id === "string" ? item.id : "";
    const thought = thoughts.get(id);
    if (!thought) return `input[${i}]: reasoning item "${id}" was not produced by this server`;
    if (stateless && typeof item.encrypted_content !== "string") {
      return `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false.`;
    }
    const expected = reasoningItem({ thought } as Parameters<typeof reasoningItem>[0]);
    if (JSON.stringify(item) !== JSON.stringify(expected)) {
      return `input[${i}]: the encrypted content of reasoning item "${id}" could not be verified (the item was changed)`;
    }
    const next = asRecord(input[i + 1]);
    if (!next || next.type === "reasoning" || next.type === "function_call_output" || next.role === "user") {
      return `Item '${id}' of type 'reasoning' was provided without its required following item.`;
    }
  }
  return undefined;
}

function checkAnthropic(fields: Record<string, unknown>, thoughts: Thoughts): string | undefined {
  const messages = Array.isArray(fields.messages) ? fields.messages : [];
  const bySignature = new Map<string, Thought>();
  const redacted = new Set<string>();
  for (const t of thoughts.values()) {
    bySignature.set(t.secret, t);
    if (t.redacted !== undefined) redacted.add(t.redacted);
  }
  let lastAssistant: { index: number; blocks: unknown[] } | undefined;
  for (const [i, raw] of messages.entries()) {
    const m = asRecord(raw);
    if (m?.role !== "assistant" || !Array.isArray(m.content)) continue;
    lastAssistant = { index: i, blocks: m.content };
    for (const [j, rawBlock] of m.content.entries()) {
      const block = asRecord(rawBlock);
      if (block?.type === "thinking") {
        const thought = bySignature.get(typeof block.signature === "string" ? block.signature : "");
        if (!thought || thought.text !== block.thinking) {
          return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
        }
      } else if (block?.type === "redacted_thinking" && !redacted.has(String(block.data))) {
        return `messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`;
      }
    }
  }
  const thinkingOn = asRecord(fields.thinking)?.type === "enabled";
  if (thinkingOn && lastAssistant && lastAssistant.index === messages.length - 2) {
    const blocks = lastAssistant.blocks.map((b) => asRecord(b)?.type);
    const first = blocks[0];
    if (blocks.includes("tool_use") && first !== "thinking" && first !== "redacted_thinking") {
      return (
        `messages.${lastAssistant.index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found ` +
        `\`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`
      );
    }
  }
  return undefined;
}
