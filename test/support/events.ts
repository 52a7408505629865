// What in-process tests of the front ends build events with.
import type { AgentEvent } from "../../src/agent/core/events.js";

let n = 0;

/** A journal event with a number and a time (one second after the last), as the host sends it. */
export function hostEvent(body: Record<string, unknown>, agent?: string): AgentEvent {
  n += 1;
  const t = new Date(Date.UTC(2026, 11, 2, 12, 0, n)).toISOString();
  return { ...body, n, t, ...(agent ? { agent } : {}) } as unknown as AgentEvent;
}

/** A model call's usage: `input` and `output` tokens, none cached. */
export const usageOf = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  estimated: false,
});
