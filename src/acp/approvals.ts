// Approvals over ACP (docs/sandbox.md, "Approvals"): a request of the session's kernels waiting for a
// person becomes `session/request_permission` to the editor, with the reason and the exact command,
// host, path or mode, and the editor's choice becomes the host's `approve` (from "acp"). An editor that
// cannot answer (no such method) leaves the request waiting for another front end (`relm attach`). A
// request answered elsewhere, or withdrawn (the cell that asked was interrupted, its kernel died), takes
// the editor's question back with `$/cancel_request`.
import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ToolKind,
} from "@agentclientprotocol/sdk";
import { ApprovalAsker } from "../commands/approval-asker.js";
import {
  type ApprovalReply,
  type ApprovalView,
  approvalQuestion,
  askedFor,
} from "../commands/approval-words.js";
import type { HostCall } from "../host/protocol.js";

const OPTIONS: PermissionOption[] = [
  { optionId: "once", name: "Allow once", kind: "allow_once" },
  { optionId: "session", name: "Allow for this session", kind: "allow_always" },
  { optionId: "project", name: "Always allow in this project", kind: "allow_always" },
  { optionId: "deny", name: "Deny", kind: "reject_once" },
];

const KINDS: Record<ApprovalView["kind"], ToolKind> = {
  net: "fetch",
  run: "execute",
  write: "edit",
  mode: "other",
};

/** Asks the editor; aborting `signal` takes the question back (`$/cancel_request`) and rejects. */
export type PermissionAsker = (
  params: RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<RequestPermissionResponse>;

/** The editor's question for one request. */
function permissionRequest(sessionId: string, r: ApprovalView): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: {
      toolCallId: `approval-${r.id}`,
      title: askedFor(r),
      kind: KINDS[r.kind],
      status: "pending",
      content: [{ type: "content", content: { type: "text", text: approvalQuestion(r) } }],
      rawInput: {
        request: r.kind,
        reason: r.reason,
        subject: r.subject,
        ...(r.bytes !== undefined ? { bytes: r.bytes } : {}),
      },
      ...(r.kind === "write" ? { locations: [{ path: r.subject }] } : {}),
    },
    options: OPTIONS,
  };
}

/** Asks the editor about each waiting request once; its choice answers the host. */
export function acpApprovals(sessionId: string, call: HostCall, ask: PermissionAsker): ApprovalAsker {
  return new ApprovalAsker(call, "acp", async (r, signal) => {
    const { outcome } = await ask(permissionRequest(sessionId, r), signal);
    // A cancelled prompt cancels its question: nothing is granted.
    const selected = outcome.outcome === "selected" && OPTIONS.some((o) => o.optionId === outcome.optionId);
    return { answer: selected ? (outcome.optionId as ApprovalReply) : "deny" };
  });
}
