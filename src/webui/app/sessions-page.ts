// Every session, newest activity first, live: status, title, directory, model, tokens, cost; a filter
// over all of them (words that must each appear in the id, title, directory, model or status).
// Virtualised like the tree: rows have one height (app.css .sessions td) and only those in the window's
// sight (and a few around) are in the page, between two spacer rows that keep the table its full height
// — a thousand rows drawn at once took most of a second of the page's first load (docs/benchmarks.md).
import { html } from "htm/preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { WebSession } from "../web-session.js";
import { needsApproval, useSessions } from "./api.js";
import { ConnectionNote } from "./connection.js";
import { ago, cost, tokens } from "./format.js";

/** One row's height in pixels (app.css `.sessions td` height), and rows drawn beyond each edge of the window. */
const ROW_PX = 38;
const OVERSCAN = 10;

function matches(s: WebSession, words: string[]): boolean {
  const hay =
    `${s.id} ${s.title} ${s.cwd} ${s.model} ${s.status}${needsApproval(s) ? " needs approval" : ""}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

function byActivity(a: WebSession, b: WebSession): number {
  return a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0;
}

/** The rows [first, last) of `count` in the window's sight, from where the table body is. */
function useVisibleRange(body: { current: HTMLElement | null }, count: number): [number, number] {
  const [range, setRange] = useState<[number, number]>([0, Math.ceil(window.innerHeight / ROW_PX)]);
  useEffect(() => {
    let frame = 0;
    const measure = () => {
      frame = 0;
      const top = body.current?.getBoundingClientRect().top ?? 0;
      const first = Math.max(0, Math.floor(-top / ROW_PX));
      const next: [number, number] = [first, first + Math.ceil(window.innerHeight / ROW_PX) + 1];
      setRange((r) => (r[0] === next[0] && r[1] === next[1] ? r : next));
    };
    // At most once a frame, however many scroll events come.
    const soon = () => {
      if (!frame) frame = requestAnimationFrame(measure);
    };
    measure();
    window.addEventListener("scroll", soon, { passive: true });
    window.addEventListener("resize", soon);
    return () => {
      window.removeEventListener("scroll", soon);
      window.removeEventListener("resize", soon);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [count]);
  return [Math.max(0, range[0] - OVERSCAN), Math.min(count, range[1] + OVERSCAN)];
}

function Row({ s }: { s: WebSession }) {
  return html`<tr data-id=${s.id} class=${s.live ? "live" : ""}>
    <td>
      <span class=${`status ${s.status}`}>${s.status}</span>
      ${needsApproval(s) ? html` <span class="status needs-approval">needs approval</span>` : ""}
    </td>
    <td class="title">
      <a href=${`#/s/${s.id}`}>${s.title || s.id}</a>
      <span class="id">${s.id}</span>
      ${s.damaged ? html`<span class="status failed">damaged</span>` : ""}
    </td>
    <td class="wide path" title=${s.cwd}>${s.cwd}</td>
    <td class="wide">${s.model}</td>
    <td class="num">${tokens(s.tokens)}</td>
    <td class="num">${cost(s.cost)}</td>
    <td class="num">${ago(s.lastActivity)}</td>
  </tr>`;
}

export function SessionsPage() {
  const { sessions, connection } = useSessions();
  const [filter, setFilter] = useState("");
  const body = useRef<HTMLTableSectionElement>(null);
  const shown = useMemo(() => {
    const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
    return (sessions ?? []).filter((s) => matches(s, words)).sort(byActivity);
  }, [sessions, filter]);
  const [first, last] = useVisibleRange(body, shown.length);
  const live = (sessions ?? []).filter((s) => s.live).length;
  return html`
    <header class="bar">
      <h1>relm</h1>
      <span class="muted">${sessions ? `${sessions.length} session${sessions.length === 1 ? "" : "s"}, ${live} live` : "loading…"}</span>
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
      <table class="sessions" data-rows=${shown.length}>
        <thead>
          <tr>
            <th class="c-status">status</th><th>title</th><th class="wide">directory</th><th class="wide c-model">model</th>
            <th class="num c-num">tokens</th><th class="num c-num">cost</th><th class="num c-num">active</th>
          </tr>
        </thead>
        <tbody ref=${body}>
          ${first > 0 ? html`<tr class="pad" style=${`height:${first * ROW_PX}px`}></tr>` : ""}
          ${shown.slice(first, last).map((s) => html`<${Row} key=${s.id} s=${s} />`)}
          ${last < shown.length ? html`<tr class="pad" style=${`height:${(shown.length - last) * ROW_PX}px`}></tr>` : ""}
        </tbody>
      </table>
      ${sessions && shown.length === 0 ? html`<p class="muted">${sessions.length === 0 ? 'no sessions yet: relm run "…" starts one' : "no session matches"}</p>` : ""}
    </main>
  `;
}
