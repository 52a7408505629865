// The few model shapes configuration names (wire format, thinking level, price). They live here, below
// llm/, so that resolving the configuration needs nothing of the model clients; llm/types.ts re-exports them.

/** The wire format: OpenAI chat-completions, OpenAI Responses, Anthropic messages. */
export type Provider = "openai" | "openai-responses" | "anthropic";

/** How hard a reasoning model thinks (`--thinking`, config `thinking`), mapped per wire format in llm/thinking.ts. */
export type ThinkingLevel = "off" | "low" | "medium" | "high";

export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "low", "medium", "high"];

/** USD per million tokens. */
export interface Price {
  input: number;
  output: number;
  cachedInput?: number;
  cacheWrite?: number;
}
