// The hooks around a root turn (docs/hooks.md): UserPromptSubmit before the person's message reaches the
// model (may block it, or add context), Stop when the agent has answered (may send it back to work with
// a reason, at most MAX_STOP_CONTINUES times in a row, so a hook that always objects cannot loop forever).

import type { TurnOutcome } from "../core/loop.js";
import type { HookOrigin, UserHooks } from "./hooks.js";
import { MAX_STOP_CONTINUES } from "./points.js";

/** UserPromptSubmit: the turn's outcome when a hook blocked the prompt, else context hooks printed. */
export async function userPromptHooks(
  hooks: UserHooks | undefined,
  origin: HookOrigin,
  prompt: string,
): Promise<{ blocked?: TurnOutcome; context?: string }> {
  if (!hooks?.has("UserPromptSubmit")) return {};
  const verdict = await hooks.fire("UserPromptSubmit", origin, { prompt });
  if (verdict.blocked !== undefined) {
    const reason = `the message was blocked by a UserPromptSubmit hook: ${verdict.blocked}`;
    origin.record({ type: "warning", message: reason });
    return { blocked: { status: "interrupted", reason } };
  }
  return verdict.context ? { context: verdict.context } : {};
}

/**
 * Stop: while a hook blocks the stop of a finished turn, runs another with its reason as the message;
 * returns the last turn's outcome.
 */
export async function stopHooks(
  hooks: UserHooks | undefined,
  origin: HookOrigin,
  first: TurnOutcome,
  again: (text: string) => Promise<TurnOutcome>,
): Promise<TurnOutcome> {
  if (!hooks?.has("Stop")) return first;
  let outcome = first;
  for (let continued = 0; outcome.status === "done"; continued++) {
    const verdict = await hooks.fire("Stop", origin, {
      stop_hook_active: continued > 0,
      last_assistant_message: outcome.text,
    });
    if (verdict.blocked === undefined) break;
    if (continued >= MAX_STOP_CONTINUES) {
      origin.record({
        type: "warning",
        message: `a Stop hook asked the agent to go on ${continued + 1} times in a row; it stops here (at most ${MAX_STOP_CONTINUES})`,
      });
      break;
    }
    outcome = await again(`[Stop hook] ${verdict.blocked}`);
  }
  return outcome;
}
