// A session's requests waiting for a person, on its page: who asks, exactly what (the command line, the
// host, the path, the mode) and the reason given, with the four answers the terminal UI's dialog offers.
// The list is the host's (`approvals`), asked again whenever an approval event arrives or the host comes
// and goes, so a request made while no page was open is there when one opens; the answer goes through
// the host's `approve` method, journaled as coming from the web.
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import {
  APPROVAL_CHOICES,
  type ApprovalView,
  actionOf,
  shownRequest,
} from "../../commands/approval-words.js";
import { act, pendingApprovals, useAction, useAsked } from "./api.js";

/** The waiting requests, asked again whenever `changes` changes. */
export function usePending(id: string, changes: unknown): [ApprovalView[], () => void] {
  const [asked, setAsked] = useState(0);
  const [pending] = useAsked(() => pendingApprovals(id), [id, changes, asked]);
  return [pending ?? [], () => setAsked((n) => n + 1)];
}

function Request({ id, r: asked, refresh }: { id: string; r: ApprovalView; refresh: () => void }) {
  const { busy, said, run } = useAction();
  const answer = (reply: string) =>
    run(() => act(id, "approve", { request: asked.id, answer: reply })).then(refresh);
  // The kernel's words with their bidi and other invisible characters as visible escapes, as every front
  // end shows them: a right-to-left override could make the command read as another one.
  const r = shownRequest(asked);
  return html`<div class="approval" data-request=${r.id} role="alertdialog" aria-label=${`approval needed: ${r.kind}`}>
    <div><strong>Approval needed · ${r.kind}</strong>${r.requester ? html` <span class="muted">asked by ${r.requester}</span>` : ""}</div>
    <div>The agent asks to ${actionOf(r)}:</div>
    <pre class="subject">${r.subject}</pre>
    <div class="reason">Reason given: ${r.reason}</div>
    <div class="actions">
      ${APPROVAL_CHOICES.map(
        (c) =>
          html`<button type="button" class=${c.reply === "deny" ? "danger" : ""} disabled=${busy} data-answer=${c.reply} onClick=${() => answer(c.reply)}>${c.label}</button>`,
      )}
      <span class="said" role="status">${said}</span>
    </div>
  </div>`;
}

export function ApprovalsPanel({
  id,
  pending,
  refresh,
}: {
  id: string;
  pending: ApprovalView[];
  refresh: () => void;
}) {
  if (pending.length === 0) return null;
  return html`<section class="approvals">
    ${pending.map((r) => html`<${Request} key=${r.id} id=${id} r=${r} refresh=${refresh} />`)}
  </section>`;
}
