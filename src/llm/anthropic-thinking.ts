// Which of the answers' thinking blocks an Anthropic request can carry back. Anthropic verifies each
// thinking block's signature against its text (and each redacted_thinking block's data) and refuses the
// whole request when one does not verify. A block without a signature cannot verify: a stream cut off
// before its signature_delta, an Anthropic-compatible server that does not sign, or a block whose text
// the journal's redaction of a secret changed (the agent clears its signature; see agent/core/loop.ts). Such
// blocks are left out, and the caller is told how many and why, never in silence.
//
// With thinking on, the answer whose tool calls are being answered must start with its thinking. When it
// has none left to send (all were dropped, or it was made with thinking off), the request goes without
// thinking, which Anthropic allows in the middle of a tool loop; the next turn thinks again.

import type { Message, Reasoning } from "./types.js";

/** What an Anthropic request sends of the answers' thinking. */
export interface ThinkingToSend {
  /** The blocks each assistant message sends, by its index in the request's messages. */
  blocks: Map<number, Record<string, unknown>[]>;
  /** Blocks left out because they carry no signature (or data) Anthropic could verify. */
  dropped: number;
  /** The request must go without thinking: the answer being continued has no thinking to start with. */
  thinkingOff: boolean;
}

/** A block Anthropic can verify: thinking with its signature, redacted_thinking with its data. */
function canVerify(block: Record<string, unknown>): boolean {
  if (block.type === "thinking") {
    return (
      typeof block.thinking === "string" && typeof block.signature === "string" && block.signature !== ""
    );
  }
  if (block.type === "redacted_thinking") return typeof block.data === "string" && block.data !== "";
  return false;
}

/** The thinking a request with thinking on (`thinking`) sends back; nothing when it is off. */
export function thinkingToSend(messages: readonly Message[], thinking: boolean): ThinkingToSend {
  const plan: ThinkingToSend = { blocks: new Map(), dropped: 0, thinkingOff: false };
  if (!thinking) return plan;
  for (const [i, m] of messages.entries()) {
    if (m.role !== "assistant" || m.reasoning?.format !== "anthropic") continue;
    const kept = m.reasoning.items.filter(canVerify);
    plan.dropped += m.reasoning.items.length - kept.length;
    if (kept.length > 0) plan.blocks.set(i, kept);
  }
  const continued = answerBeingContinued(messages);
  plan.thinkingOff = continued !== undefined && !plan.blocks.has(continued);
  if (plan.thinkingOff) plan.blocks.clear();
  return plan;
}

/**
 * The index of the last answer when it called tools: Anthropic requires it to start with its thinking
 * (what follows it, tool results and user text, is one user turn).
 */
function answerBeingContinued(messages: readonly Message[]): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "assistant") return m.toolCalls.length > 0 ? i : undefined;
  }
  return undefined;
}

/**
 * One line for the journal when a request left thinking blocks out, or undefined when it sent all it had
 * (going without thinking after an answer made without it is the protocol, not a loss).
 */
export function thinkingNotice(plan: ThinkingToSend): string | undefined {
  if (plan.dropped === 0) return undefined;
  const off = plan.thinkingOff
    ? "; this request goes without thinking, since the answer whose tool calls it continues has none left to start with"
    : "";
  return (
    `${plan.dropped} thinking block(s) left out of the request to the model: they carry no signature ` +
    `Anthropic could verify (cut off mid-stream, from a server that does not sign, or changed by the ` +
    `journal's redaction of a secret)${off}`
  );
}

/**
 * The copy of an answer's reasoning to journal when the journal changes text (`change`: its redaction of
 * secrets): a thinking block whose text it changes loses its signature, which could never verify the
 * changed text. A resumed session then leaves that block out, saying so, instead of sending a request
 * Anthropic refuses. Other reasoning is returned as it is.
 */
export function journaledReasoning(reasoning: Reasoning, change: (text: string) => string): Reasoning {
  if (reasoning.format !== "anthropic") return reasoning;
  const items = reasoning.items.map((block) =>
    block.type === "thinking" &&
    typeof block.thinking === "string" &&
    change(block.thinking) !== block.thinking
      ? { ...block, signature: "" }
      : block,
  );
  return { ...reasoning, items };
}
