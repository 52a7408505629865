// Retries of model requests made outside the turn loop (llm() from a cell, a compaction's summary): the
// loop journals its own (loop.ts); these go through here, so every failed try is on disk, and shown,
// before the client waits to try again.
import type { StreamEvent, Usage } from "../../llm/types.js";
import type { JournalBody } from "../../session/types.js";
import type { Budget } from "../budget/budget.js";

/** Passes a model stream through, journaling each `retry` event as a `model_retry` of turn `turn()`. */
export async function* journalRetries(
  stream: AsyncIterable<StreamEvent>,
  record: (body: JournalBody) => unknown,
  turn: () => number,
): AsyncGenerator<StreamEvent> {
  for await (const event of stream) {
    if (event.type === "retry") {
      const { attempt, delayMs, reason } = event;
      record({ type: "model_retry", turn: turn(), attempt, delayMs, reason });
    }
    yield event;
  }
}

/** Such a request's spend, booked against the agent's budget and journaled as an `llm_call`. */
export function bookCall(
  agent: { readonly budget: Budget; record(body: JournalBody): unknown },
  model: string,
  paid: { usage: Usage; cost: number | null },
  started: number,
): void {
  const { usage, cost } = paid;
  agent.budget.addSpend(usage.inputTokens + usage.outputTokens, cost);
  agent.record({ type: "llm_call", model, prompts: 1, usage, cost, durationMs: Date.now() - started });
}
