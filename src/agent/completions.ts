import { collectResponse } from "../llm/index.js";
import type { ModelClient } from "../llm/types.js";
import type { JournalBody } from "../session/types.js";
import type { Budget } from "./budget.js";
import { HostRequestError } from "./host-errors.js";

const SYSTEM = "Answer the request directly and concisely.";

export interface CompletionHost {
  readonly budget: Budget;
  client(model?: string | null): ModelClient;
  record(body: JournalBody): unknown;
}

/**
 * `llm(prompt)` from Python: one plain completion, no kernel and no tools. It counts against the same
 * budgets as every other model call of the tree and is checked before it is made.
 */
export async function complete(host: CompletionHost, prompt: string, model?: string | null): Promise<string> {
  const stop = host.budget.check();
  if (stop) throw new HostRequestError(`llm: ${stop.message}`, "budget");
  const client = host.client(model);
  const started = Date.now();
  const result = await collectResponse(
    client.stream({
      system: SYSTEM,
      messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
      tools: [],
    }),
  );
  if ("error" in result) throw new Error(`llm: ${result.error.message}`);
  const usage = result.usage;
  host.budget.addSpend(usage.inputTokens + usage.outputTokens, result.cost);
  host.record({
    type: "llm_call",
    model: client.model,
    prompts: 1,
    usage,
    cost: result.cost,
    durationMs: Date.now() - started,
  });
  return result.message.text;
}

/** `llm.batch(prompts)`: concurrent completions, at most `parallel` at once, answers in order. */
export async function completeBatch(
  host: CompletionHost,
  prompts: string[],
  model: string | null | undefined,
  parallel: number,
): Promise<string[]> {
  const texts: string[] = new Array(prompts.length);
  let next = 0;
  const worker = async () => {
    while (next < prompts.length) {
      const i = next++;
      texts[i] = await complete(host, prompts[i] as string, model);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, prompts.length)) }, worker));
  return texts;
}
