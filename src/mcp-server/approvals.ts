// Approvals through `relm mcp serve` (docs/sandbox.md, "Approvals"): while a tool call follows a task,
// a request of the task's kernels waiting for a person is asked of the MCP client with elicitation
// (`elicitation/create`), when the client declared that capability; the choice becomes the host's
// `approve` (from "mcp"), as the UI's dialog does. A client that cannot answer (no capability, an error)
// leaves the request waiting for another front end or `--approve`. A request answered elsewhere, or
// withdrawn (its cell was interrupted), takes its question back (the elicitation is cancelled).
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
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

/** The reply an elicitation result gives: what was chosen; declined or dismissed is a refusal. */
function replyOfResult(result: ElicitResult): { reply: ApprovalReply; note?: string } {
  const chosen = result.action === "accept" ? result.content?.answer : undefined;
  if (typeof chosen === "string" && APPROVAL_CHOICES.some((c) => c.reply === chosen))
    return { reply: chosen as ApprovalReply };
  if (result.action === "accept") return { reply: "deny", note: "the MCP client gave no valid answer" };
  return {
    reply: "deny",
    note: result.action === "decline" ? "declined through the MCP client" : "dismissed in the MCP client",
  };
}

/** Asks the client about each waiting request of one session once, while a tool call follows it. */
export class McpApprovals {
  private readonly asked = new Map<string, AbortController>();
  private closed = false;

  constructor(
    private readonly sessionId: string,
    private readonly call: HostCall,
    private readonly elicit: Elicit,
  ) {}

  onEvent(event: { type: string; id?: string }): void {
    if (event.type === "approval_request") void this.refresh();
    // Answered elsewhere (another front end, the policy) or withdrawn: the question is taken back.
    if (event.type === "approval_answer" && event.id) this.asked.get(event.id)?.abort();
  }

  /** Asks about the requests waiting now (also those that waited before this tool call followed). */
  async refresh(): Promise<void> {
    const pending = await this.call("approvals")
      .then((r) => r.pending)
      .catch(() => []);
    for (const r of pending) {
      if (this.closed || this.asked.has(r.id)) continue;
      const controller = new AbortController();
      this.asked.set(r.id, controller);
      void this.askOne(r, controller.signal);
    }
  }

  /** The tool call stopped following: open questions are taken back (the requests go on waiting). */
  close(): void {
    this.closed = true;
    for (const controller of this.asked.values()) controller.abort();
  }

  private async askOne(r: ApprovalView, signal: AbortSignal): Promise<void> {
    let result: ElicitResult;
    try {
      result = await this.elicit(elicitationOf(this.sessionId, r), { signal, timeout: ELICIT_TIMEOUT_MS });
    } catch {
      return; // cancelled, or the client cannot answer: the request waits for another front end
    }
    if (signal.aborted) return;
    const { reply, note } = replyOfResult(result);
    await this.call("approve", { id: r.id, answer: reply, from: "mcp", ...(note ? { note } : {}) }).catch(
      () => undefined,
    );
  }
}
