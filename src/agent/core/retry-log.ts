// Retries of model requests made outside the turn loop (llm() from a cell, a compaction's summary): the
// loop journals its own (loop.ts); these go through here, so every failed try is on disk, and shown,
// before the client waits to try again.
import type { StreamEvent } from "../../llm/types.js";
import type { JournalBody } from "../../session/types.js";

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
