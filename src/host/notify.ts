// What the session host tells the user's hooks and the person (docs/hooks.md): SessionStart when a host
// takes the session up, SessionEnd when it puts it down, and a `notification` event (journaled, so an
// attached terminal UI shows it as the terminal's own notification and a detached session's log keeps
// it) followed by the Notification hook when the work finished, failed, hit a budget or waits for a
// person's approval.

import type { PendingApproval } from "../agent/approvals/broker.js";
import type { Agent } from "../agent/core/agent.js";
import type { AutonomousOutcome } from "../agent/gates/autonomy.js";
import { hookOrigin } from "../agent/user-hooks/points.js";
import { firstLine } from "../config/text.js";
import { failureReason } from "./turn-words.js";

type NotificationKind = "done" | "failed" | "approval" | "budget";

/** SessionStart: "resume" when the session was made by an earlier process (a revived or resumed host). */
export async function sessionStartHooks(session: Agent): Promise<void> {
  const hooks = session.tree.userHooks;
  if (!hooks?.has("SessionStart")) return;
  const created = Date.parse(session.journal.header.created);
  const source = created < performance.timeOrigin ? "resume" : "startup";
  await hooks.fire("SessionStart", hookOrigin(session), { source }, source);
}

/** SessionEnd: why this host lets the session go ("stopped", "done", "idle"). */
export async function sessionEndHooks(session: Agent, reason: string): Promise<void> {
  const hooks = session.tree.userHooks;
  if (!hooks?.has("SessionEnd")) return;
  await hooks.fire("SessionEnd", hookOrigin(session), { reason }, reason);
}

/** Journals a notification (front ends show it) and runs the Notification hooks with it. */
export async function notify(session: Agent, kind: NotificationKind, text: string): Promise<void> {
  session.record({ type: "notification", kind, text });
  await session.tree.userHooks?.fire(
    "Notification",
    hookOrigin(session),
    { notification_type: kind, message: text, title: "relm" },
    kind,
  );
}

/** The notification a finished turn (or autonomous run) deserves; none for an interrupt or a pause. */
export function outcomeNotice(
  outcome: AutonomousOutcome,
  title: string,
): { kind: NotificationKind; text: string } | undefined {
  const name = title ? `"${firstLine(title, 60)}"` : "session";
  switch (outcome.status) {
    case "done":
      return { kind: "done", text: `${name} finished: ${firstLine(outcome.text, 120) || "done"}` };
    case "budget":
      return { kind: "budget", text: `${name} stopped at a budget: ${outcome.stop.message}` };
    case "error":
    case "gates_failing":
      return { kind: "failed", text: `${name} failed: ${firstLine(failureReason(outcome), 160)}` };
    default:
      return undefined;
  }
}

/**
 * Given the requests waiting for a person each time that list changes (approvals/broker.ts onChange),
 * notifies once per request that starts waiting: someone who left a long run hears that it is stuck.
 */
export function approvalNotifier(session: Agent): (pending: readonly PendingApproval[]) => void {
  const told = new Set<string>();
  return (pending) => {
    for (const request of pending) {
      if (told.has(request.id)) continue;
      told.add(request.id);
      const text = `${session.id} needs approval: ${request.kind} ${firstLine(request.subject, 100)} (${firstLine(request.reason, 100)})`;
      void notify(session, "approval", text).catch(() => undefined);
    }
    const live = new Set(pending.map((p) => p.id));
    for (const id of told) if (!live.has(id)) told.delete(id);
  };
}
