// How a request for approval reads to a person, and the words they answer it with: shared by every
// front end that shows one (line mode, `relm attach`, the terminal UI's dialog, ACP, the MCP server),
// so each shows exactly what will be acted on (docs/sandbox.md, "Approvals").
import { printable } from "../config/text.js";
import type { JournalBodyOf } from "../session/types.js";

/** A request as front ends get it (the `approvals` host method, the approval_request event). */
export type ApprovalView = Omit<JournalBodyOf<"approval_request">, "type">;

export type ApprovalReply = "once" | "session" | "project" | "deny";

const ACTIONS: Record<Exclude<ApprovalView["kind"], "write">, string> = {
  net: "reach this network host",
  run: "run this command outside the sandbox",
  mode: "switch the session to this permission mode",
};

/** What kind of thing is asked, without the thing: "reach this network host". */
export function actionOf(r: Pick<ApprovalView, "kind" | "bytes">): string {
  return r.kind === "write" ? `write ${r.bytes ?? 0} bytes to this file` : ACTIONS[r.kind];
}

/**
 * The request as a person is shown it. The command, path, reason and agent name are the kernel's words:
 * their control and format characters become visible escapes (printable), so that a carriage return, an
 * escape sequence or a bidi override cannot make what is approved read as something else. The host acts
 * on the request as it was asked.
 */
export function shownRequest(r: ApprovalView): ApprovalView {
  return {
    ...r,
    subject: printable(r.subject),
    reason: printable(r.reason),
    requester: printable(r.requester),
  };
}

/** What is asked, in words: "reach this network host: pypi.org:443". */
export function askedFor(r: ApprovalView): string {
  return `${actionOf(r)}: ${printable(r.subject)}`;
}

/** The question, one line: who asks what, and why. */
export function approvalQuestion(r: ApprovalView): string {
  const shown = shownRequest(r);
  return `The agent (${shown.requester}) asks to ${actionOf(r)}: ${shown.subject} — reason: ${shown.reason}`;
}

/** The choices, labelled: allow once / allow for this session / always for this project / deny. */
export const APPROVAL_CHOICES: readonly { reply: ApprovalReply; key: string; label: string }[] = [
  { reply: "once", key: "y", label: "allow once" },
  { reply: "session", key: "s", label: "allow for this session" },
  { reply: "project", key: "p", label: "always for this project" },
  { reply: "deny", key: "n", label: "deny" },
];

/** The answer a typed word gives, or undefined when the word is not one. */
export function replyOf(word: string): ApprovalReply | undefined {
  const w = word.trim().toLowerCase();
  if (["y", "yes", "once", "allow", "a"].includes(w)) return "once";
  if (["s", "session"].includes(w)) return "session";
  if (["p", "project", "always"].includes(w)) return "project";
  if (["n", "no", "deny", "d"].includes(w)) return "deny";
  return undefined;
}

/** The hint under a question in a line-based front end. */
export const REPLY_HINT = APPROVAL_CHOICES.map((c) => `${c.key} = ${c.label}`).join(", ");
