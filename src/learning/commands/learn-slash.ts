import type { AgentSession } from "../../agent/session.js";
import { learningOf } from "../attach/root-hooks.js";
import type { LearnStatus } from "../learn/learn.js";

/** One line about online refinement: its policy when on, and what its passes did and cost so far. */
export function describeLearn(status: LearnStatus): string {
  const cost = status.spent.cost === null ? "cost unknown" : `$${status.spent.cost.toFixed(4)}`;
  const so = `${status.passes} pass(es), ${status.applied} edit(s) applied, ${status.spent.tokens} tokens, ${cost}`;
  const l = status.learn;
  if (!l) return `learning: off (${so})`;
  const when = [
    l.everyTurns > 0 ? `every ${l.everyTurns} model calls` : undefined,
    l.atCompaction ? "at compaction" : undefined,
    l.onGateFailure > 0 ? `after ${l.onGateFailure} identical gate failures` : undefined,
  ].filter(Boolean);
  return `learning: on — ${when.join(", ") || "no trigger set"}; edits go to the session scope and the agents read them before their next model request (${so})`;
}

/**
 * `/learn on|off|status` in line mode. Before the first message there is no session yet: the choice is
 * kept (`pending`) and the session starts with it.
 */
export function learnSlash(
  args: string,
  session: AgentSession | undefined,
  pending: { learn?: boolean },
): string {
  const mode = args.trim() || "status";
  if (!["on", "off", "status"].includes(mode)) return "usage: /learn on | off | status";
  const learning = session && learningOf(session);
  if (!learning) {
    if (mode !== "status") pending.learn = mode === "on";
    return `learning: ${pending.learn ? "on" : "off"} (from the first message)`;
  }
  return describeLearn(mode === "status" ? learning.status() : learning.setOn(mode === "on"));
}

/** `/learn off` asked for before the first message wins over config's learn.enabled and a resumed journal. */
export function applyPendingLearn(session: AgentSession, pending: { learn?: boolean }): void {
  if (pending.learn === false) learningOf(session)?.setOn(false);
}
