// Every session, newest activity first, live: status, title, directory, model, tokens, cost; a filter
// over all of them (words that must each appear in the id, title, directory, model or status).
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { needsApproval, useSessions, type WebSession } from "./api.js";
import { ConnectionNote } from "./connection.js";
import { ago, cost, tokens } from "./format.js";

function matches(s: WebSession, words: string[]): boolean {
  const hay =
    `${s.id} ${s.title} ${s.cwd} ${s.model} ${s.status}${needsApproval(s) ? " needs approval" : ""}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

function byActivity(a: WebSession, b: WebSession): number {
  return a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0;
}

export function SessionsPage() {
  const { sessions, connection } = useSessions();
  const [filter, setFilter] = useState("");
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = (sessions ?? []).filter((s) => matches(s, words)).sort(byActivity);
  const live = (sessions ?? []).filter((s) => s.live).length;
  return html`
    <header class="bar">
      <h1>relm</h1>
      <span class="muted">${sessions ? `${sessions.length} sessions, ${live} live` : "loading…"}</span>
      <${ConnectionNote} connection=${connection} />
    </header>
    <main>
      <input
        class="filter"
        type="search"
        placeholder="filter: words in the title, directory, model, status or id"
        value=${filter}
        onInput=${(e: Event) => setFilter((e.target as HTMLInputElement).value)}
      />
      <table class="sessions">
        <thead>
          <tr>
            <th>status</th><th>title</th><th class="wide">directory</th><th class="wide">model</th>
            <th class="num">tokens</th><th class="num">cost</th><th class="num">active</th>
          </tr>
        </thead>
        <tbody>
          ${shown.map(
            (s) => html`
              <tr key=${s.id} data-id=${s.id} class=${s.live ? "live" : ""}>
                <td>
                  <span class=${`status ${s.status}`}>${s.status}</span>
                  ${needsApproval(s) ? html` <span class="status needs-approval">needs approval</span>` : ""}
                </td>
                <td class="title">
                  <a href=${`#/s/${s.id}`}>${s.title || s.id}</a>
                  <span class="id">${s.id}</span>
                  ${s.damaged ? html`<span class="status failed">damaged</span>` : ""}
                </td>
                <td class="wide path">${s.cwd}</td>
                <td class="wide">${s.model}</td>
                <td class="num">${tokens(s.tokens)}</td>
                <td class="num">${cost(s.cost)}</td>
                <td class="num">${ago(s.lastActivity)}</td>
              </tr>
            `,
          )}
        </tbody>
      </table>
      ${sessions && shown.length === 0 ? html`<p class="muted">${sessions.length === 0 ? 'no sessions yet: relm run "…" starts one' : "no session matches"}</p>` : ""}
    </main>
  `;
}
