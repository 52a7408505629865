// Approvals asked of a person through another program (docs/sandbox.md, "Approvals"): an editor over
// ACP (acp/approvals.ts), an MCP client with elicitation (mcp-server/approvals.ts). Each request of the
// session's kernels waiting for a person is asked once, and the answer becomes the host's `approve`. A
// program that cannot answer (the question fails) leaves the request waiting for another front end. A
// request answered elsewhere (another front end, the policy) or withdrawn (its cell was interrupted, its
// kernel died) takes its question back: the question's signal aborts.
import type { HostCall } from "../host/protocol.js";
import type { ApprovalReply, ApprovalView } from "./approval-words.js";

/** Asks about one request; rejects when it was not answered (taken back, or the program cannot answer). */
type AskApproval = (
  request: ApprovalView,
  signal: AbortSignal,
) => Promise<{ answer: ApprovalReply; note?: string }>;

export class ApprovalAsker {
  /** The requests asked about, each with its question's controller. */
  private readonly asked = new Map<string, AbortController>();
  private closed = false;

  constructor(
    private readonly call: HostCall,
    /** Who answered, as the host journals it. */
    private readonly from: "acp" | "mcp",
    private readonly ask: AskApproval,
  ) {}

  /** Called with every event of the session. */
  onEvent(event: { type: string; id?: unknown }): void {
    if (event.type === "approval_request") void this.refresh();
    // Answered (by another front end or the policy) or withdrawn: the question is moot.
    else if (event.type === "approval_answer" && typeof event.id === "string")
      this.asked.get(event.id)?.abort();
  }

  /** Asks about the requests waiting now (also those that waited before this asker saw the session). */
  async refresh(): Promise<void> {
    const pending = await this.call("approvals")
      .then((r) => r.pending)
      .catch(() => []);
    for (const r of pending) {
      if (this.closed || this.asked.has(r.id)) continue;
      const question = new AbortController();
      this.asked.set(r.id, question);
      void this.askOne(r, question.signal);
    }
  }

  /** Asks no more: open questions are taken back (the requests go on waiting). */
  close(): void {
    this.closed = true;
    for (const question of this.asked.values()) question.abort();
  }

  private async askOne(r: ApprovalView, signal: AbortSignal): Promise<void> {
    let answered: Awaited<ReturnType<AskApproval>>;
    try {
      answered = await this.ask(r, signal);
    } catch {
      return; // taken back, or it cannot answer: the request waits for another front end
    }
    if (signal.aborted) return;
    await this.call("approve", { id: r.id, from: this.from, ...answered }).catch(() => undefined);
  }
}
