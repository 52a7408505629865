import { collectResponse } from "../../llm/index.js";
import type { ModelClient } from "../../llm/types.js";
import type { JournalBody } from "../../session/types.js";
import type { Budget } from "../budget/budget.js";
import { admit } from "../budget/request-budget.js";
import { bookCall, journalRetries } from "../core/retry-log.js";
import { userMessage } from "../core/tool.js";
import { KernelCallError } from "./errors.js";

const SYSTEM = "Answer the request directly and concisely.";
const CANCELLED = "llm: cancelled (the cell that asked was interrupted)";

/** The agent whose kernel asks: its budget, its journal, and its model (or another one named). */
interface CompletionCaller {
  readonly budget: Budget;
  readonly model: { named(model?: string | null): ModelClient };
  /** The turn whose cell asks: its retries are journaled under it. */
  readonly conversation: { readonly turn: number };
  record(body: JournalBody): unknown;
}

/**
 * `llm(prompt)` from Python: one plain completion, no kernel and no tools. It counts against the same
 * budgets as every other model call of the tree and is checked before it is made.
 */
export async function complete(
  host: CompletionCaller,
  prompt: string,
  model?: string | null,
  /** Aborted when the cell that asked was interrupted (llm.cancel): the request is abandoned. */
  signal?: AbortSignal,
): Promise<string> {
  const client = host.model.named(model);
  const started = Date.now();
  // Admitted like every model call of the tree: answer capped by --max-tokens, aborted at --max-time.
  const admitted = await admit(
    host.budget,
    client,
    { system: SYSTEM, messages: [userMessage(prompt)], tools: [] },
    signal,
  );
  if (admitted.status === "budget") throw new KernelCallError(`llm: ${admitted.stop.message}`, "budget");
  if (admitted.status === "aborted") throw new Error(CANCELLED);
  const admission = admitted.admission;
  try {
    const result = await collectResponse(
      journalRetries(
        admission.stream(),
        (body) => host.record(body),
        () => host.conversation.turn,
      ),
    );
    if ("error" in result) {
      const overrun = admission.overrun;
      if (overrun) {
        // Stopped as it streamed: no server counted it, so what it cost by the estimate is booked.
        bookCall(host, client.model, admission.estimatedSpend(), started);
        throw new KernelCallError(`llm: ${host.budget.check()?.message ?? overrun.message}`, "budget");
      }
      const timeStop = admission.expired
        ? (host.budget.check() ?? host.budget.timeStop())
        : result.error.outOfTime
          ? host.budget.timeStop(`a retry of the failed llm() request would not fit: ${result.error.message}`)
          : undefined;
      if (timeStop) throw new KernelCallError(`llm: ${timeStop.message}`, "budget");
      if (signal?.aborted) throw new Error(CANCELLED);
      throw new Error(`llm: ${result.error.message}`);
    }
    bookCall(host, client.model, result, started);
    return result.message.text;
  } finally {
    admission.release();
  }
}

/** `llm.batch(prompts)`: concurrent completions, at most `parallel` at once, answers in order. */
export async function completeBatch(
  host: CompletionCaller,
  prompts: string[],
  model: string | null | undefined,
  parallel: number,
  signal?: AbortSignal,
): Promise<string[]> {
  const texts: string[] = new Array(prompts.length);
  let next = 0;
  const worker = async () => {
    while (next < prompts.length) {
      if (signal?.aborted) throw new Error(CANCELLED);
      const i = next++;
      texts[i] = await complete(host, prompts[i] as string, model, signal);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, prompts.length)) }, worker));
  return texts;
}
