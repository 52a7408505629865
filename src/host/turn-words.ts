// How a host names a session from its first message, and says why a turn failed (state.json's reason).
import type { AutonomousOutcome } from "../agent/gates/autonomy.js";
import { firstLine } from "../config/text.js";

/** A session's title from the first line of its first message. */
export function titleOf(text: string): string {
  return firstLine(text, 80);
}

export function failureReason(outcome: AutonomousOutcome): string {
  switch (outcome.status) {
    case "budget":
      return outcome.stop.message;
    case "error":
      return outcome.message;
    case "gates_failing":
      return `gates still failing: ${outcome.report.split("\n")[0]}`;
    default:
      return outcome.status;
  }
}
