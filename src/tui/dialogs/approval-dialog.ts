// Approvals in the terminal UI (docs/sandbox.md, "Approvals"): a request of the agent's kernel waiting
// for a person opens a dialog that shows who asks, why, and exactly what (the command line, the host,
// the path, the mode), with allow once / allow for this session / always for this project / deny. The
// waiting list is the host's (`approvals`), asked again at each approval event and when the UI attaches,
// so a request that waited while nobody was attached opens its dialog at `relm attach`.
import {
  APPROVAL_CHOICES,
  type ApprovalReply,
  type ApprovalView,
  actionOf,
  shownRequest,
} from "../../commands/approval-words.js";
import type { AppApi } from "../app-api.js";
import { pickFrom } from "./dialogs.js";

export class TuiApprovals {
  private showing = false;
  private again = false;
  /** Requests answered (here, elsewhere, by the policy) or withdrawn: no dialog for them any more. */
  private readonly settled = new Set<string>();
  /** The dialog on screen: its request, and how to take it down. */
  private open: { id: string; close: AbortController } | undefined;

  /** `ui.link` is read at each call: a new session replaces it. */
  constructor(private readonly ui: AppApi) {}

  /** Every event the UI gets: approval events bring the dialog up, or take it down once answered. */
  onEvent(event: { type: string; id?: string }): void {
    if (event.type === "approval_request") void this.refresh();
    if (event.type === "approval_answer" && event.id) {
      this.settled.add(event.id);
      if (this.open?.id === event.id) this.open.close.abort();
    }
  }

  /** Shows a dialog for each waiting request, one at a time, oldest first. */
  async refresh(): Promise<void> {
    if (this.showing) {
      this.again = true;
      return;
    }
    this.showing = true;
    try {
      do {
        this.again = false;
        const pending = await this.ui.link
          .call("approvals")
          .then((r) => r.pending)
          .catch(() => []);
        for (const request of pending) await this.ask(request);
      } while (this.again);
    } finally {
      this.showing = false;
    }
  }

  private async ask(r: ApprovalView): Promise<void> {
    if (this.settled.has(r.id)) return;
    const t = this.ui.dialogs.theme;
    const shown = shownRequest(r);
    const text = [
      `The agent${shown.requester ? ` (${shown.requester})` : ""} asks to ${actionOf(r)}:`,
      "",
      `  ${t.c.bold(shown.subject)}`,
      "",
      `Reason given: ${shown.reason}`,
    ].join("\n");
    const close = new AbortController();
    this.open = { id: r.id, close };
    const choice = await pickFrom(this.ui.dialogs, {
      title: `Approval needed · ${r.kind}`,
      text,
      items: APPROVAL_CHOICES.map((c) => ({ value: c.reply, label: c.label })),
      filterable: false,
      // Enter on a dialog that appeared mid-typing must not grant anything.
      initial: "deny",
      hint: "↑↓ choose · enter answer · esc deny",
      signal: close.signal,
    }).finally(() => {
      this.open = undefined;
    });
    // Answered elsewhere or withdrawn (the cell was interrupted) while it showed: nothing to answer.
    if (close.signal.aborted) return;
    const reply: ApprovalReply = (choice as ApprovalReply | undefined) ?? "deny";
    const answered = await this.ui.link
      .call("approve", { id: r.id, answer: reply, from: "ui" })
      .then((a) => a.answered)
      .catch((e: Error) => {
        this.ui.note(t.error(`✗ ${e.message}`));
        return true;
      });
    if (!answered) this.ui.note(t.dim(`request ${r.id} was answered elsewhere`));
  }
}
