// Approvals in the line-based front ends (docs/sandbox.md, "Approvals"): line mode and `relm attach`
// without the full-screen UI. Each request waiting for a person is printed with exactly what it asks
// and why; the next line typed answers it (y, s, p or n). The waiting list comes from the host's
// `approvals` method, asked again at every approval event, so a request answered elsewhere (another
// front end, the policy) stops waiting here too.
import { type ApprovalView, approvalQuestion, REPLY_HINT, replyOf } from "../commands/approval-words.js";
import type { HostCall } from "../host/protocol.js";

export class LineApprovals {
  private waiting: ApprovalView[] = [];
  private readonly shown = new Set<string>();

  constructor(
    /** The session host's methods (`approvals`, `approve`). */
    private readonly call: HostCall,
    private readonly write: (text: string) => void,
  ) {}

  /** A request waits for an answer here. */
  get asking(): boolean {
    return this.waiting.length > 0;
  }

  /** Called with every event the front end sees: approval events refresh the waiting list. */
  onEvent(event: { type: string }): void {
    if (event.type === "approval_request" || event.type === "approval_answer") void this.refresh();
  }

  /** Asks the host which requests wait, and prints the ones not shown yet. */
  async refresh(): Promise<void> {
    let pending: ApprovalView[];
    try {
      pending = (await this.call("approvals")).pending;
    } catch {
      return;
    }
    this.waiting = pending;
    for (const r of pending) {
      if (this.shown.has(r.id)) continue;
      this.shown.add(r.id);
      this.write(`\n⚠ approval needed [${r.id}]: ${approvalQuestion(r)}\n  answer: ${REPLY_HINT}\n`);
    }
  }

  /**
   * A line typed while a request waits: its answer (true), or a hint when the line is no answer word
   * (true too: the line was for the request, not for the agent). False when nothing waits.
   */
  async answerLine(line: string): Promise<boolean> {
    const r = this.waiting[0];
    if (!r) return false;
    const reply = replyOf(line);
    if (!reply) {
      this.write(`request ${r.id} waits for an answer: ${REPLY_HINT}\n`);
      return true;
    }
    this.waiting.shift();
    const answered = await this.call("approve", { id: r.id, answer: reply, from: "line" })
      .then((result) => result.answered)
      .catch((e: Error) => {
        this.write(`${e.message}\n`);
        return false;
      });
    if (!answered) this.write(`request ${r.id} was answered already\n`);
    await this.refresh();
    return true;
  }
}
