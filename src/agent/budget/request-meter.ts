// What a model request costs while it is still streaming. Budgets are otherwise booked when a request
// ends, from the server's usage; a server that streams forever (or ignores the answer's cap) would never
// end, so the deltas are counted as they arrive — four characters a token, the estimate relm books when a
// server reports no usage — and the request is aborted once its spend so far would go past a limit.

import type { Price, StreamEvent, Usage } from "../../llm/types.js";
import type { Budget, BudgetStop } from "./budget.js";

/** Characters per output token in the running estimate (the same as llm/client.ts estimateUsage). */
const CHARS_PER_TOKEN = 4;

/** USD a token at the model's price: a prompt token at its dearest rate (a cache write may cost more). */
export function tokenRates(price: Price): { input: number; output: number } {
  return {
    input: Math.max(price.input, price.cacheWrite ?? price.input) / 1_000_000,
    output: price.output / 1_000_000,
  };
}

export class RequestMeter {
  private chars = 0;
  private stopped: BudgetStop | undefined;

  constructor(
    private readonly budget: Budget,
    /** The prompt's estimated tokens (ModelClient.estimateInputTokens). */
    private readonly promptTokens: number,
    private readonly price: Price | null,
    /** Aborts the request. */
    private readonly abort: () => void,
  ) {}

  /** The limit the request was stopped at, if it was. */
  get overrun(): BudgetStop | undefined {
    return this.stopped;
  }

  /** The events, passed on as they come; each delta is counted, and past a limit the request is aborted. */
  async *watch(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent, void> {
    for await (const event of events) {
      // Not reset by a retry: what a broken-off try streamed was generated, and may well be billed.
      if (event.type === "text" || event.type === "reasoning" || event.type === "tool_call_delta")
        this.count(event.delta.length);
      else if (event.type === "tool_call_start") this.count(event.name.length);
      yield event;
    }
  }

  /**
   * What the request has cost so far by the estimate: its prompt and the characters streamed. Booked for
   * a request stopped here, whose usage no server reported.
   */
  estimatedSpend(): { usage: Usage; cost: number | null } {
    const usage: Usage = {
      inputTokens: this.promptTokens,
      outputTokens: Math.ceil(this.chars / CHARS_PER_TOKEN),
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      estimated: true,
    };
    if (!this.price) return { usage, cost: null };
    const rates = tokenRates(this.price);
    return { usage, cost: usage.inputTokens * rates.input + usage.outputTokens * rates.output };
  }

  private count(chars: number): void {
    if (this.stopped) return;
    this.chars += chars;
    const { usage, cost } = this.estimatedSpend();
    const stop = this.budget.overrun(usage.inputTokens + usage.outputTokens, cost ?? 0);
    if (!stop) return;
    this.stopped = stop;
    this.abort();
  }
}
