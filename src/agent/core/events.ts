import type { JournalEvent } from "../../session/types.js";

/** Events that only matter while they happen (streamed text, live cell output); they are not journaled. */
type LiveEvent =
  | { type: "session"; id: string; dir: string; title: string; provider: string; model: string }
  | { type: "text_delta"; turn: number; delta: string }
  /** The model's reasoning (Responses summaries, Anthropic thinking) as it streams; the journal keeps it in model_response.reasoning. */
  | { type: "reasoning_delta"; turn: number; delta: string }
  | { type: "text_reset"; turn: number }
  | { type: "cell_output_delta"; callId: string; text: string };

/**
 * The one event stream every front end consumes: journal events (durable, numbered) and live events.
 * Events of child agents carry `agent`, the id of the agent they belong to; the root's have none.
 */
export type AgentEvent = (JournalEvent | LiveEvent) & { agent?: string };

export type EventSink = (event: AgentEvent) => void;
