// One sub-agent's own transcript (its journal, children/ID/ under the session's folder, and what it
// streams: a running cell's output as it is printed), live, with the sub-agents it started: read-only, since a sub-agent takes its orders from the code that started it.
// Requests for approval of any agent of the tree are answered on the session's page.
import { html } from "htm/preact";
import { ConnectionNote } from "./connection.js";
import { useTranscriptParts } from "./transcript-parts.js";
import { useTranscript } from "./use-transcript.js";

export function ChildPage({ session, child }: { session: string; child: string }) {
  const { transcript, connection, live } = useTranscript(`/api/sessions/${session}/agents/${child}/events`);
  const parts = useTranscriptParts(transcript, session);
  const task = transcript.items.find((i) => i.kind === "user");
  const title = task?.kind === "user" ? task.text.split("\n")[0] : child;
  return html`
    <header class="bar">
      <a href=${`#/s/${session}`} class="back">← session ${session}</a>
      <h1 class="title" title=${title}>${title && title.length > 80 ? `${title.slice(0, 80)}…` : title}</h1>
      <span class="muted">sub-agent ${child}</span>
      <${ConnectionNote} connection=${connection} />
    </header>
    <main class="session child">
      <div class="muted path">
        ${transcript.where ? html`<span class="kernel-where">kernel: ${transcript.where}</span> · ` : ""}
        a sub-agent of session ${session}${live ? " · host connected" : ""} · read-only: its parent's code directs it
      </div>
      ${parts.charts}
      ${parts.tree}
      ${parts.items}
    </main>
  `;
}
