// One model response's spend as relm web plots it: when it came, its tokens (cached input apart) and its
// cost. The page draws the session's own from its events (app/transcript.ts); the server reads a
// subtree's from its journals (subtree-usage.ts). Nothing of Node here: the page's bundle has it too.
import type { JournalEventOf } from "../session/types.js";

export interface UsagePoint {
  t: number;
  /** Input tokens read from the provider's prompt cache. */
  cached: number;
  /** The rest: input not from the cache, and output. */
  fresh: number;
  cost: number;
}

/** What the server sends for a subtree's plot. */
export interface SubtreeUsage {
  /** The subtree's top: the session's id (the whole tree) or a sub-agent's. */
  top: string;
  agents: number;
  /** Each call with the agent that made it: the session's id for its root, else the sub-agent's. */
  calls: (UsagePoint & { agent: string })[];
}

export function usagePoint(event: JournalEventOf<"model_response">): UsagePoint {
  const u = event.usage;
  return {
    t: Date.parse(event.t),
    cached: u.cachedInputTokens,
    fresh: u.inputTokens - u.cachedInputTokens + u.outputTokens,
    cost: event.cost ?? 0,
  };
}
