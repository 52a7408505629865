// The refine model's one call, admitted like every model call of a session (docs/budgets.md): its answer
// capped by what is left of --max-tokens, aborted at the --max-time deadline, its spend booked before the
// tokens it held are given back.

import type { Budget } from "../../agent/budget/budget.js";
import { type Admission, admit } from "../../agent/budget/request-budget.js";
import { contextWindow } from "../../agent/compaction/windows.js";
import { cutOff } from "../../agent/core/truncation.js";
import { collectResponse } from "../../llm/index.js";
import type { ModelClient, ModelRequest, Usage } from "../../llm/types.js";

interface RefineCallOptions {
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
  /** A budget refused it before anything was sent. */
  | { status: "refused"; reason: string }
  /** Sent (and, with `usage`, paid for) but no usable answer. */
  | { status: "failed"; error: string; usage?: Usage; cost?: number | null };

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
    const result = await collectResponse(
      admission ? admission.stream() : client.stream(request, options.signal),
    );
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
