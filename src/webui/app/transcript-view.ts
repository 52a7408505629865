// The transcript's items as the page shows them: answers as sanitised markdown (markdown.ts), reasoning
// folded, cells with their output (live while they run) and images, diffs folded, notices in one line.
import { html } from "htm/preact";
import { useEffect, useRef } from "preact/hooks";
import { duration } from "./format.js";
import { markdownNodes } from "./markdown.js";
import type { Item } from "./transcript.js";

function Markdown({ text }: { text: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.replaceChildren(...markdownNodes(text));
  }, [text]);
  return html`<div class="md" ref=${ref}></div>`;
}

function ItemView({ id, item }: { id: string; item: Item }) {
  switch (item.kind) {
    case "user":
      return html`<div class="item user"><div class="who">you</div><div class="text">${item.text}</div></div>`;
    case "answer":
      return html`<div class=${`item answer${item.streaming ? " streaming" : ""}`}>
        ${item.reasoning ? html`<details class="reasoning"><summary>reasoning</summary><div class="text">${item.reasoning}</div></details>` : ""}
        ${item.text ? html`<${Markdown} text=${item.text} />` : ""}
      </div>`;
    case "cell":
      return html`<div class=${`item cell ${item.status ?? "running"}`}>
        <pre class="code"><code>${item.code}</code></pre>
        ${item.output ? html`<pre class="output">${item.output}</pre>` : ""}
        ${item.error ? html`<div class="error">${item.error}</div>` : ""}
        ${item.images.map((name) => html`<img class="plot" alt=${name} src=${`/api/sessions/${id}/outputs/${encodeURIComponent(name)}`} />`)}
        <div class="muted small">${item.status ? `${item.status}${item.durationMs !== undefined ? ` · ${duration(item.durationMs)}` : ""}` : "running…"}</div>
      </div>`;
    case "diff":
      return html`<details class="item diff"><summary>${item.title}</summary><pre>${item.diff}</pre></details>`;
    case "notice":
      return html`<div class=${`item notice ${item.tone}`}>${item.text}</div>`;
  }
}

/**
 * What an item shows, as one string: equal, the item is drawn as it was. Items are mutated in place as
 * they stream (an answer's text, a cell's output and end); a user message, a notice or a diff never.
 */
function shown(item: Item): string {
  switch (item.kind) {
    case "answer":
      return `${item.streaming}\u0000${item.reasoning}\u0000${item.text}`;
    case "cell":
      return `${item.status}\u0000${item.error}\u0000${item.durationMs}\u0000${item.images.join("/")}\u0000${item.output}`;
    default:
      return "";
  }
}

/**
 * Items are mutated in place as they stream: the page draws again when its version changes, and an item
 * whose shown() is as before is handed to Preact as the same element, which it skips whole — a fan-out's
 * thousand "sub-agent … started/finished" notices are not drawn again with each new one.
 */
export function TranscriptView({ id, items }: { id: string; items: Item[] }) {
  const end = useRef<HTMLDivElement>(null);
  const drawn = useRef(new WeakMap<Item, { shown: string; element: unknown }>()).current;
  const element = (item: Item) => {
    const now = shown(item);
    const last = drawn.get(item);
    if (last && last.shown === now) return last.element;
    const next = html`<${ItemView} key=${item.key} id=${id} item=${{ ...item }} />`;
    drawn.set(item, { shown: now, element: next });
    return next;
  };
  useEffect(() => {
    // Follow the bottom while the person is near it; leave them where they are when they scrolled up.
    const el = document.scrollingElement;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 300) end.current?.scrollIntoView();
  });
  return html`<div class="transcript">
      ${items.map(element)}
      <div ref=${end}></div>
    </div>`;
}
