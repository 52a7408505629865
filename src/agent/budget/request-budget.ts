// Every model request of an agent is admitted by its budget first: the answer is capped so that the
// request cannot overshoot --max-tokens (its prompt counted) or --max-cost (its prompt and its answer at
// the model's price), it is metered as it streams and aborted when a limit is reached all the same (a
// server may ignore the cap), it is aborted at the --max-time deadline, and requests in flight across the
// tree hold what they may spend so that together they cannot overshoot either.

import type { ModelClient, ModelRequest, StreamEvent, Usage } from "../../llm/types.js";
import { type Budget, type BudgetStop, smaller } from "./budget.js";
import { Deadline } from "./deadline.js";
import { RequestMeter, tokenRates } from "./request-meter.js";

/** The smallest answer worth asking for: a request whose budget cannot leave room for it is not sent. */
export const MIN_ANSWER_TOKENS = 64;

export interface Admission {
  /** The request as it may be sent: its answer capped, its deadline set. */
  readonly request: ModelRequest;
  /** Aborts at the deadline, when the caller's signal does, or when the metered stream reaches a limit. */
  readonly signal: AbortSignal;
  /**
   * The request's events (`client.stream(request, signal)`), metered: when its spend so far would go
   * past --max-tokens or --max-cost, the request is aborted and `overrun` names the limit.
   */
  stream(): AsyncIterable<StreamEvent>;
  /** The time budget ran out (so an aborted request was cut off by it, not by an interrupt). */
  readonly expired: boolean;
  /** The token or cost limit the streaming answer reached, so that it was aborted. */
  readonly overrun: BudgetStop | undefined;
  /** What the request cost by the estimate, for one stopped by `overrun` (no server reported usage). */
  estimatedSpend(): { usage: Usage; cost: number | null };
  /** The answer's cap, when one was set. */
  readonly maxOutputTokens: number | undefined;
  /** The cap is what was left of --max-tokens or --max-cost: an answer cut off at it means the budget ran out. */
  readonly cappedByBudget: boolean;
  /** Which budget set the cap, when one did. */
  readonly cappedBy: "max-tokens" | "max-cost" | undefined;
  /** Gives back the reservation and stops the timer; call it after the spend is recorded. Idempotent. */
  release(): void;
}

type AdmitResult =
  | { status: "admitted"; admission: Admission }
  | { status: "budget"; stop: BudgetStop }
  | { status: "aborted" };

interface AdmitOptions {
  /** The model's context window in tokens: the answer is capped to fit beside the prompt. */
  window?: number;
}

/**
 * Admits `request` under `budget`, or says which budget refuses it. Waits while other requests of the
 * tree hold tokens or money that this one needs (they give back what they did not use when they end),
 * until the deadline or `signal`.
 */
export async function admit(
  budget: Budget,
  client: ModelClient,
  request: ModelRequest,
  signal?: AbortSignal,
  options: AdmitOptions = {},
): Promise<AdmitResult> {
  const deadline = new Deadline(budget, signal);
  let admitted = false;
  try {
    for (;;) {
      const stop = budget.check() ?? (deadline.expired ? budget.timeStop() : undefined);
      if (stop) return { status: "budget", stop };
      if (signal?.aborted) return { status: "aborted" };
      const allowed = budget.tokensLeft(false);
      const money = budget.costLeft(false);
      if (allowed === undefined && money === undefined) {
        admitted = true;
        // No cap of our own: the client applies the model's limit (Anthropic needs one), if it knows it.
        const limit = smaller(request.maxOutputTokens, client.maxOutputTokens);
        return {
          status: "admitted",
          admission: admission(request, client, deadline, budget, { cap: limit }),
        };
      }
      const prompt = client.estimateInputTokens(request);
      const needed = prompt + MIN_ANSWER_TOKENS;
      if (allowed !== undefined && allowed < needed) {
        const stop = budget.tokenStop(
          `the next request needs about ${needed} for its prompt and a minimal answer`,
        );
        if (stop) return { status: "budget", stop };
      }
      const price = client.price;
      if (money !== undefined && !price) {
        const why = `the price of "${client.model}" is unknown, so its cost could not be kept under the limit`;
        const stop = budget.costStop(why);
        if (stop) return { status: "budget", stop };
      }
      const rates = price ? tokenRates(price) : { input: 0, output: 0 };
      const neededCost = prompt * rates.input + MIN_ANSWER_TOKENS * rates.output;
      if (money !== undefined && money < neededCost) {
        const why =
          `the next request may cost up to $${neededCost.toFixed(4)} (about ${prompt} prompt tokens ` +
          `and a minimal answer at the model's price), more than is left`;
        const stop = budget.costStop(why);
        if (stop) return { status: "budget", stop };
      }
      const free = budget.tokensLeft(true);
      const freeMoney = budget.costLeft(true);
      if ((free !== undefined && free < needed) || (freeMoney !== undefined && freeMoney < neededCost)) {
        // Held by requests in flight elsewhere in the tree: most of it comes back when they end.
        await budget.released(deadline.signal);
        continue;
      }
      const byTokens = free === undefined ? undefined : free - prompt;
      const byCost =
        freeMoney === undefined || rates.output === 0
          ? undefined
          : Math.floor((freeMoney - prompt * rates.input) / rates.output);
      const others = [request.maxOutputTokens, client.maxOutputTokens, windowRoom(options.window, prompt)];
      const caps = [byTokens, byCost, ...others].filter((n): n is number => n !== undefined);
      // None at all: a cost limit on a model whose answers cost nothing, with no other cap known.
      const cap = caps.length > 0 ? Math.min(...caps) : undefined;
      const cappedBy =
        cap === undefined
          ? undefined
          : byTokens !== undefined && byTokens <= cap
            ? "max-tokens"
            : byCost !== undefined && byCost <= cap
              ? "max-cost"
              : undefined;
      const answer = cap ?? 0;
      const release = budget.reserve(prompt + answer, prompt * rates.input + answer * rates.output);
      admitted = true;
      const capped = cap === undefined ? request : { ...request, maxOutputTokens: cap };
      return {
        status: "admitted",
        admission: admission(capped, client, deadline, budget, { cap, cappedBy, release, prompt }),
      };
    }
  } finally {
    if (!admitted) deadline.dispose();
  }
}

/** Room for the answer beside the prompt in the window (servers such as vLLM reject more). */
function windowRoom(window: number | undefined, prompt: number): number | undefined {
  return window === undefined ? undefined : Math.max(MIN_ANSWER_TOKENS, window - prompt);
}

interface Terms {
  cap: number | undefined;
  cappedBy?: "max-tokens" | "max-cost";
  release?: () => void;
  /** With a token or cost limit: the prompt's estimate, and the stream is metered against the budget. */
  prompt?: number;
}

function admission(
  request: ModelRequest,
  client: ModelClient,
  deadline: Deadline,
  budget: Budget,
  terms: Terms,
): Admission {
  const sent = { ...request, deadline: deadline.at };
  // Watches the stream only with a limit to keep; its estimate is asked for only when it stopped one.
  const meter = new RequestMeter(budget, terms.prompt ?? 0, client.price, () => deadline.cut());
  return {
    request: sent,
    signal: deadline.signal,
    stream() {
      const events = client.stream(sent, deadline.signal);
      return terms.prompt === undefined ? events : meter.watch(events);
    },
    get expired() {
      return deadline.expired;
    },
    get overrun() {
      return meter.overrun;
    },
    estimatedSpend: () => meter.estimatedSpend(),
    maxOutputTokens: terms.cap,
    cappedByBudget: terms.cappedBy !== undefined,
    cappedBy: terms.cappedBy,
    release() {
      terms.release?.();
      deadline.dispose();
    },
  };
}
