// Every model request of an agent is admitted by its budget first: the answer is capped so that the
// request cannot overshoot --max-tokens (its prompt counted), it is aborted at the --max-time deadline,
// and requests in flight across the tree hold what they may spend so that together they cannot
// overshoot either.

import type { ModelClient, ModelRequest } from "../llm/types.js";
import type { Budget, BudgetStop } from "./budget.js";
import { Deadline } from "./deadline.js";

/** The smallest answer worth asking for: a request whose budget cannot leave room for it is not sent. */
export const MIN_ANSWER_TOKENS = 64;

export interface Admission {
  /** The request as it may be sent: its answer capped, its deadline set. */
  readonly request: ModelRequest;
  /** Aborts at the deadline, or when the caller's signal does. */
  readonly signal: AbortSignal;
  /** The time budget ran out (so an aborted request was cut off by it, not by an interrupt). */
  readonly expired: boolean;
  /** The answer's cap, when one was set. */
  readonly maxOutputTokens: number | undefined;
  /** The cap is what was left of --max-tokens: an answer cut off at it means the budget ran out. */
  readonly cappedByBudget: boolean;
  /** Gives back the reservation and stops the timer; call it after the spend is recorded. Idempotent. */
  release(): void;
}

export type AdmitResult =
  | { status: "admitted"; admission: Admission }
  | { status: "budget"; stop: BudgetStop }
  | { status: "aborted" };

export interface AdmitOptions {
  /** The model's context window in tokens: the answer is capped to fit beside the prompt. */
  window?: number;
}

/**
 * Admits `request` under `budget`, or says which budget refuses it. Waits while other requests of the
 * tree hold tokens that this one needs (they give back what they did not use when they end), until the
 * deadline or `signal`.
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
      if (allowed === undefined) {
        admitted = true;
        // No cap of our own: the client applies the model's limit (Anthropic needs one), if it knows it.
        const limit = smaller(request.maxOutputTokens, client.maxOutputTokens);
        return { status: "admitted", admission: admission(request, deadline, limit) };
      }
      const prompt = client.estimateInputTokens(request);
      const needed = prompt + MIN_ANSWER_TOKENS;
      if (allowed < needed) {
        const stop = budget.tokenStop(
          `the next request needs about ${needed} for its prompt and a minimal answer`,
        );
        if (stop) return { status: "budget", stop };
      }
      const free = budget.tokensLeft(true) ?? allowed;
      if (free < needed) {
        // Tokens held by requests in flight elsewhere in the tree: most come back when they end.
        await budget.released(deadline.signal);
        continue;
      }
      const byBudget = free - prompt;
      const others = [request.maxOutputTokens, client.maxOutputTokens, windowRoom(options.window, prompt)];
      const cap = Math.min(byBudget, ...others.filter((n): n is number => n !== undefined));
      const release = budget.reserve(prompt + cap);
      admitted = true;
      return {
        status: "admitted",
        admission: admission({ ...request, maxOutputTokens: cap }, deadline, cap, byBudget <= cap, release),
      };
    }
  } finally {
    if (!admitted) deadline.dispose();
  }
}

function smaller(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** Room for the answer beside the prompt in the window (servers such as vLLM reject more). */
function windowRoom(window: number | undefined, prompt: number): number | undefined {
  return window === undefined ? undefined : Math.max(MIN_ANSWER_TOKENS, window - prompt);
}

function admission(
  request: ModelRequest,
  deadline: Deadline,
  maxOutputTokens: number | undefined,
  cappedByBudget = false,
  release: () => void = () => {},
): Admission {
  return {
    request: { ...request, deadline: deadline.at },
    signal: deadline.signal,
    get expired() {
      return deadline.expired;
    },
    maxOutputTokens,
    cappedByBudget,
    release() {
      release();
      deadline.dispose();
    },
  };
}
