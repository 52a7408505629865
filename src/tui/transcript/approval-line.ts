// The transcript's line for an answered approval (docs/sandbox.md, "Approvals"): the dialog goes away
// once anyone answers (this terminal, relm web, an editor, the policy), and this line stays, saying what
// was asked and how it was answered, as the web page's does.
import { printable } from "../../config/text.js";
import type { JournalEventOf } from "../../session/types.js";
import type { Theme } from "../theme.js";

type Request = JournalEventOf<"approval_request">;
type Answer = JournalEventOf<"approval_answer">;

const KIND: Record<Request["kind"], string> = {
  net: "network",
  run: "command",
  write: "write",
  mode: "mode",
};

const BY: Record<Answer["by"], string> = {
  ui: "the terminal UI",
  web: "relm web",
  acp: "the editor",
  mcp: "the MCP client",
  line: "line mode",
  policy: "the policy",
};

/** Remembers what each request asked, for the line its answer gets. */
export class ApprovalLines {
  private readonly asked = new Map<string, string>();

  request(event: Request): void {
    this.asked.set(event.id, `${KIND[event.kind] ?? event.kind} ${printable(event.subject)}`);
  }

  answer(event: Answer, t: Theme): string {
    const what = this.asked.get(event.id) ?? `request ${event.id}`;
    this.asked.delete(event.id);
    if (event.withdrawn)
      return t.warn(
        `■ ${what}: ${event.note ?? "withdrawn (nobody answered before the cell was interrupted)"}`,
      );
    const how = event.allow
      ? `allowed ${event.scope === "once" ? "once" : `for this ${event.scope}`}`
      : "denied";
    const line = `${event.allow ? "✓" : "✗"} ${what}: ${how} by ${BY[event.by] ?? event.by}${event.note ? `: ${event.note}` : ""}`;
    return event.allow ? t.dim(line) : t.warn(line);
  }
}
