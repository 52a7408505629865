// For callers that want the whole answer and no deltas.

import type { ModelError, ModelResponse, StreamEvent } from "./types.js";

export async function collectResponse(
  stream: AsyncIterable<StreamEvent>,
): Promise<ModelResponse | { error: ModelError }> {
  let attempts = 0;
  for await (const event of stream) {
    if (event.type === "retry") attempts = event.attempt - 1;
    else if (event.type === "done") {
      const { type: _type, ...response } = event;
      return response;
    } else if (event.type === "error") return { error: event.error };
  }
  return { error: { kind: "stream", message: "the model stream ended without a result", attempts } };
}

export function isModelError(result: ModelResponse | { error: ModelError }): result is { error: ModelError } {
  return "error" in result;
}
