// The refine model's one call, admitted like every model call of a session (docs/budgets.md): its answer
// capped by what is left of --max-tokens, aborted at the --max-time deadline, its spend booked before the
// tokens it held are given back. relm reads at most REFINE_ANSWER_TOKENS of the answer whatever the
// server does with the cap it was sent (docs/harness.md, "Refining"): past it, it stops reading.

import type { Budget } from "../../agent/budget/budget.js";
import { type Admission, admit } from "../../agent/budget/request-budget.js";
import { contextWindow } from "../../agent/compaction/windows.js";
import { cutOff } from "../../agent/core/truncation.js";
import { computeCost } from "../../llm/index.js";
import type {
  ModelClient,
  ModelError,
  ModelRequest,
  ModelResponse,
  StreamEvent,
  Usage,
} from "../../llm/types.js";

/** The most of a refine answer relm reads, in tokens (four characters a token, as budgets estimate). */
export const REFINE_ANSWER_TOKENS = 2_000;
const CHARS_PER_TOKEN = 4;

export interface RefineCallOptions {
  /** The budgets the call runs under (a session's); without them it is sent as asked. */
  budget?: Budget;
  /** Context-window overrides (config.json contextWindows): the answer's cap fits beside the prompt. */
  windows?: Record<string, number>;
  signal?: AbortSignal;
  /** Books the call's spend (a session adds it to its budget and journals it) while it still holds its share. */
  onSpend?: (usage: Usage, cost: number | null, durationMs: number) => void;
}

type RefineCall =
  | { status: "answered"; text: string; usage: Usage; cost: number | null }
  /** The answer passed the cap relm reads (`tokens`): `text` is what came before, usage an estimate. */
  | { status: "cut"; text: string; tokens: number; usage: Usage; cost: number | null }
  /** A budget refused it before anything was sent. */
  | { status: "refused"; reason: string }
  /** Sent (and, with `usage`, paid for) but no usable answer. */
  | { status: "failed"; error: string; usage?: Usage; cost?: number | null };

/** A refine model request: a fixed system prompt (so requests share their first bytes), one question, no tools. */
export function refineRequest(system: string, text: string, more?: Partial<ModelRequest>): ModelRequest {
  return { system, messages: [{ role: "user", content: [{ type: "text", text }] }], tools: [], ...more };
}

export async function callRefineModel(
  client: ModelClient,
  request: ModelRequest,
  options: RefineCallOptions,
): Promise<RefineCall> {
  const started = Date.now();
  let admission: Admission | undefined;
  if (options.budget) {
    const window = contextWindow(client.model, options.windows).tokens;
    const admitted = await admit(options.budget, client, request, options.signal, { window });
    if (admitted.status === "budget") return { status: "refused", reason: admitted.stop.message };
    if (admitted.status === "aborted") return { status: "failed", error: "the refine was interrupted" };
    admission = admitted.admission;
  }
  try {
    const result = await readCapped(
      admission ? admission.stream() : client.stream(request, options.signal),
      request.maxOutputTokens,
    );
    if ("cut" in result) {
      // Stopped reading mid-answer: no server reported its usage, so the estimate is booked.
      const usage: Usage = result.response?.usage ?? {
        inputTokens: client.estimateInputTokens(request),
        outputTokens: Math.ceil(result.chars / CHARS_PER_TOKEN),
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        estimated: true,
      };
      const cost = result.response ? result.response.cost : computeCost(usage, client.price);
      options.onSpend?.(usage, cost, Date.now() - started);
      return { status: "cut", text: result.text, tokens: result.cut, usage, cost };
    }
    if ("error" in result) {
      if (admission?.overrun) {
        // Stopped as it streamed: no server counted it, so what it cost by the estimate is booked.
        const { usage, cost } = admission.estimatedSpend();
        options.onSpend?.(usage, cost, Date.now() - started);
        return {
          status: "failed",
          error: `the refine model was stopped: ${admission.overrun.message}`,
          usage,
          cost,
        };
      }
      const outOfTime = admission?.expired || result.error.outOfTime;
      const why = outOfTime ? "was stopped by the time budget, --max-time" : "failed";
      return { status: "failed", error: `the refine model ${why}: ${result.error.message}` };
    }
    options.onSpend?.(result.usage, result.cost, Date.now() - started);
    const spend = { usage: result.usage, cost: result.cost };
    if (cutOff(result.stopReason) && admission?.cappedByBudget) {
      return {
        status: "failed",
        error: `the refine model's answer was cut off at what was left of --${admission.cappedBy} (${admission.maxOutputTokens} tokens)`,
        ...spend,
      };
    }
    return { status: "answered", text: result.message.text, ...spend };
  } finally {
    admission?.release();
  }
}

/** Where reading stopped; `response` when the server had already finished (its usage is known). */
interface Cut {
  cut: number;
  text: string;
  chars: number;
  response?: ModelResponse;
}

/**
 * The stream's response, or where it was cut: reading stops once the answer passes `cap` tokens (the
 * cap sent with the request, else REFINE_ANSWER_TOKENS), so a server that ignores the cap cannot make
 * relm read, or wait for, more. The answer's text counts; reasoning too when a cap was sent, since a
 * server counts it against that cap. Leaving the stream early releases the connection (llm/http.ts).
 */
async function readCapped(
  events: AsyncIterable<StreamEvent>,
  sent: number | undefined,
): Promise<ModelResponse | { error: ModelError } | Cut> {
  const cap = Math.min(sent ?? REFINE_ANSWER_TOKENS, REFINE_ANSWER_TOKENS);
  let text = "";
  let chars = 0;
  let attempts = 0;
  for await (const event of events) {
    if (event.type === "retry") {
      // A new try: the answer starts again.
      attempts = event.attempt - 1;
      text = "";
      chars = 0;
    } else if (event.type === "text" || (event.type === "reasoning" && sent !== undefined)) {
      if (event.type === "text") text += event.delta;
      chars += event.delta.length;
      if (Math.ceil(chars / CHARS_PER_TOKEN) > cap) return { cut: cap, text, chars };
    } else if (event.type === "done") {
      const { type: _type, ...response } = event;
      // A wire that hands the whole text over at the end is held to the same cap.
      const whole = response.message.text;
      if (Math.ceil(whole.length / CHARS_PER_TOKEN) > cap)
        return { cut: cap, text: whole.slice(0, cap * CHARS_PER_TOKEN), chars: whole.length, response };
      return response;
    } else if (event.type === "error") return { error: event.error };
  }
  return { error: { kind: "stream", message: "the model stream ended without a result", attempts } };
}
