// One session: its transcript, live, and what a person can do to it (send a message, interrupt the
// running cell, stop the host, change its goal or autonomy). After a dropped connection the browser
// reconnects by itself and says the last event it had (Last-Event-ID): the server replays only what
// came after, and the transcript drops anything it has already seen.

import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { act, useAction, useSessions } from "./api.js";
import { ApprovalsPanel, usePending } from "./approvals-panel.js";
import { ConnectionNote } from "./connection.js";
import { cost, tokens } from "./format.js";
import { LearningPanel } from "./learning-panel.js";
import { SteerPanel } from "./steer-panel.js";
import { useTranscriptParts } from "./transcript-parts.js";
import { useTranscript } from "./use-transcript.js";

export function SessionPage({ id }: { id: string }) {
  const { transcript, connection, live } = useTranscript(`/api/sessions/${id}/events`);
  const parts = useTranscriptParts(transcript, id);
  const { sessions } = useSessions();
  const session = sessions?.find((s) => s.id === id);
  const [text, setText] = useState("");
  const { busy, said, run: runAction } = useAction();
  const [pending, refreshPending] = usePending(id, `${transcript.approvalEvents} ${live}`);

  const run = (action: "send" | "interrupt" | "stop", body: object = {}) =>
    runAction(async () => {
      const answer = await act(id, action, body);
      if (action === "send") setText("");
      return answer;
    });
  const send = (e: Event) => {
    e.preventDefault();
    if (text.trim()) void run("send", { text });
  };
  const keys = (e: KeyboardEvent) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) send(e);
  };

  return html`
    <header class="bar">
      <a href="#/" class="back">← sessions</a>
      <h1 class="title">${session?.title || id}</h1>
      ${session ? html`<span class=${`status ${session.status}`} data-status=${session.status}>${session.status}</span>` : ""}
      <span class="muted">${session ? `${session.model} · ${tokens(session.tokens)} tokens · ${cost(session.cost)}` : ""}</span>
      <${ConnectionNote} connection=${connection} />
    </header>
    <main class="session">
      <div class="muted path">
        ${transcript.where ? html`<span class="kernel-where">kernel: ${transcript.where}</span> · ` : ""}${session?.cwd ?? ""} · ${id}${live ? " · host connected" : ""}</div>
      <${SteerPanel} id=${id} live=${live} />
      ${parts.charts}
      <${LearningPanel} id=${id} changed=${transcript.learningEvents} />
      ${parts.tree}
      ${parts.items}
      <${ApprovalsPanel} id=${id} pending=${pending} refresh=${refreshPending} />
      <form class="composer" onSubmit=${send}>
        <textarea
          name="message"
          rows="3"
          placeholder="a message to the session (Ctrl+Enter sends)"
          value=${text}
          onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}
          onKeyDown=${keys}
        ></textarea>
        <div class="actions">
          <button type="submit" disabled=${busy || !text.trim()}>Send</button>
          <button type="button" disabled=${busy} onClick=${() => run("interrupt")}>Interrupt</button>
          <button type="button" class="danger" disabled=${busy} onClick=${() => run("stop")}>Stop</button>
          <span class="said" role="status">${said}</span>
        </div>
      </form>
    </main>
  `;
}
