// Approvals through `relm mcp serve` (docs/sandbox.md, "Approvals"): while a tool call follows a task,
// a request of the task's kernels waiting for a person is asked of the MCP client with elicitation
// (`elicitation/create`), when the client declared that capability; the choice becomes the host's
// `approve` (from "mcp"), as the UI's dialog does. A client that cannot answer (no capability, an error)
// leaves the request waiting for another front end or `--approve`. A request answered elsewhere, or
// withdrawn (its cell was interrupted), takes its question back (the elicitation is cancelled).
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { ApprovalAsker } from "../commands/approval-asker.js";
import {
  APPROVAL_CHOICES,
  type ApprovalReply,
  type ApprovalView,
  approvalQuestion,
} from "../commands/approval-words.js";
import type { HostCall } from "../host/protocol.js";

/** A person may take their time: the question stays open this long (the request waits regardless). */
const ELICIT_TIMEOUT_MS = 24 * 3600_000;

/** Sends `elicitation/create` to the client (McpServer.server.elicitInput, tied to the tool call). */
export type Elicit = (
  params: ElicitRequestFormParams,
  options: { signal: AbortSignal; timeout: number },
) => Promise<ElicitResult>;

/** The client's question for one request: the reason and the exact command, host, path or mode. */
function elicitationOf(sessionId: string, r: ApprovalView): ElicitRequestFormParams {
  return {
    mode: "form",
    message: `relm session ${sessionId} needs approval. ${approvalQuestion(r)}`,
    requestedSchema: {
      type: "object",
      properties: {
        answer: {
          type: "string",
          title: "Answer",
          description: `${r.kind}: ${r.subject}`,
          // `enum` with `enumNames`: the form every client of elicitation (spec 2025-06-18 on) reads.
          enum: APPROVAL_CHOICES.map((c) => c.reply),
          enumNames: APPROVAL_CHOICES.map((c) => c.label),
          default: "deny",
        },
      },
      required: ["answer"],
    },
  };
}

/** The answer an elicitation result gives: what was chosen; declined or dismissed is a refusal. */
function answerOf(result: ElicitResult): { answer: ApprovalReply; note?: string } {
  const chosen = result.action === "accept" ? result.content?.answer : undefined;
  if (typeof chosen === "string" && APPROVAL_CHOICES.some((c) => c.reply === chosen))
    return { answer: chosen as ApprovalReply };
  if (result.action === "accept") return { answer: "deny", note: "the MCP client gave no valid answer" };
  return {
    answer: "deny",
    note: result.action === "decline" ? "declined through the MCP client" : "dismissed in the MCP client",
  };
}

/** Asks the client about each waiting request of one session once, while a tool call follows it. */
export function mcpApprovals(sessionId: string, call: HostCall, elicit: Elicit): ApprovalAsker {
  return new ApprovalAsker(call, "mcp", async (r, signal) =>
    answerOf(await elicit(elicitationOf(sessionId, r), { signal, timeout: ELICIT_TIMEOUT_MS })),
  );
}
