// An answer the model did not finish: it stopped at its output cap (OpenAI finish_reason `length`,
// Anthropic stop_reason `max_tokens`, Responses incomplete for `max_output_tokens`). It is never passed
// off as a final answer: cut off by the model's own limit it is continued, a few times at most; cut off
// by what was left of --max-tokens the run stops as over budget (docs/budgets.md). Nor is a reply with
// neither text nor a tool call: the model is asked again, a few times at most.

/** Continuations of one answer before the run gives up and reports it as cut off. */
export const MAX_CONTINUATIONS = 3;

/** True for the stop reasons that mean "cut off at the output cap". */
export function cutOff(stopReason: string): boolean {
  // Responses: an answer left incomplete at max_output_tokens.
  return stopReason === "length" || stopReason === "max_tokens" || stopReason === "max_output_tokens";
}

/** What the model is told after an answer was cut off. */
export function continuationNote(maxOutputTokens: number | undefined): string {
  const where =
    maxOutputTokens === undefined ? "its output limit" : `its output limit (${maxOutputTokens} tokens)`;
  return (
    `Your last answer was cut off at ${where}. Continue exactly where it stopped, without repeating ` +
    "anything; the parts are joined into one answer. If it is too long to finish, shorten the rest."
  );
}

/** Replies in a row with neither text nor a tool call that the model is asked to redo; then an error. */
export const MAX_EMPTY_REPLIES = 2;

/** What the model is told after a reply with neither text nor a tool call. */
export const EMPTY_REPLY_NOTE =
  "Your last reply was empty: no text and no ipython call. Continue the task: run a cell, or give your " +
  "answer as text.";
