import { join } from "node:path";
import { UserError } from "../../config/errors.js";
import type { Message } from "../../llm/types.js";
import { JOURNAL_FILE, Journal, readJournal } from "../../session/index.js";
import type { JournalBody, JournalEvent, JournalHeader } from "../../session/types.js";
import { type RebuiltConversation, rebuildConversation } from "./resume.js";

/** A session that cannot be continued; the message says why. */
class SessionResumeError extends UserError {
  override name = "SessionResumeError";
}

/** A root session's journal, read back and reopened for appending. */
interface OpenedForResume {
  header: JournalHeader;
  events: JournalEvent[];
  journal: Journal;
  /** The latest system prompt: a compaction may have renewed it (with a refined harness). */
  system: string;
  rebuilt: RebuiltConversation;
}

export function openForResume(dir: string, id: string, secrets: string[]): OpenedForResume {
  const { header, events } = readJournal(join(dir, JOURNAL_FILE));
  if (header.parent) {
    throw new SessionResumeError(
      `session ${id} is a sub-agent of ${header.parent}; resume that session instead`,
    );
  }
  const journal = Journal.open(dir, { secrets });
  const system = events.findLast((e) => e.type === "system_prompt");
  if (system?.type !== "system_prompt") {
    journal.close();
    throw new SessionResumeError(`session ${id} was written by an older relm and cannot be resumed`);
  }
  return { header, events, journal, system: system.text, rebuilt: rebuildConversation(dir, events) };
}

/** What settling a resumed session needs from it. */
interface ResumedAgent {
  record(body: JournalBody): unknown;
  pushMessage(message: Message): void;
  /** Starts a kernel that restores the last snapshot; what came back and what did not. */
  restoreKernel(): Promise<{ restored: string[]; notRestored: { name: string; reason: string }[] }>;
  now(): Date;
}

/**
 * Answers whatever was in flight as "not replayed", restores the kernel from the snapshot, journals a
 * `resumed` event, and returns the note that tells the model all that.
 */
export async function settleResumed(
  agent: ResumedAgent,
  rebuilt: RebuiltConversation,
  repairedTail: boolean,
): Promise<string> {
  const uncertain: string[] = [];
  if (repairedTail) uncertain.push("the journal's last line was half-written and was removed");
  if (rebuilt.modelCallInFlight !== undefined) {
    uncertain.push(`the model call of turn ${rebuilt.modelCallInFlight} was in flight; it was not replayed`);
  }
  for (const { turn, call, started } of rebuilt.unanswered) {
    const reason = started
      ? "not run again: this cell was running when the session's host stopped, so it may have run partly"
      : "not run: the session's host stopped before this cell ran";
    agent.record({ type: "tool_skipped", turn, callId: call.id, reason });
    agent.pushMessage({
      role: "tool",
      toolCallId: call.id,
      content: [{ type: "text", text: `[${reason}]` }],
    });
    uncertain.push(
      `a cell of turn ${turn} ${started ? "was running (it may have run partly)" : "had not started"}`,
    );
  }
  const restored = await agent.restoreKernel();
  agent.record({
    type: "resumed",
    uncertain,
    restored: restored.restored,
    notRestored: restored.notRestored,
  });
  const lines = [`[relm] This session was resumed in a new process (${agent.now().toISOString()}).`];
  if (uncertain.length > 0) lines.push(`When the previous process stopped: ${uncertain.join("; ")}.`);
  if (restored.restored.length > 0) {
    lines.push(
      `Kernel variables restored from the snapshot after the last finished cell: ${restored.restored.join(", ")}.`,
    );
  }
  if (restored.notRestored.length > 0) {
    const lost = restored.notRestored.map((v) => `${v.name} (${v.reason})`).join(", ");
    lines.push(`Not restored: ${lost}.`);
  }
  return lines.join("\n");
}
