// The session's sub-agents as a tree, live: each node's label, status, what it is doing and, once it
// finished, what it spent; a subtree folds, and a search keeps the nodes that match (with their path).
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { cost, tokens } from "./format.js";
import type { AgentNode } from "./transcript.js";

type Agents = ReadonlyMap<string, AgentNode>;

/** Whether the node or one below it matches every word. */
function matches(agents: Agents, node: AgentNode, words: string[]): boolean {
  const hay = `${node.id} ${node.label} ${node.task} ${node.model} ${node.status}`.toLowerCase();
  if (words.every((w) => hay.includes(w))) return true;
  return node.children.some((id) => {
    const child = agents.get(id);
    return child !== undefined && matches(agents, child, words);
  });
}

function NodeView({ agents, id, words }: { agents: Agents; id: string; words: string[] }) {
  const node = agents.get(id);
  if (!node || (words.length > 0 && !matches(agents, node, words))) return null;
  const spent = node.tokens !== undefined ? `${tokens(node.tokens)} tokens · ${cost(node.cost ?? null)}` : "";
  const line = html`<span class=${`status ${node.status === "cancelled" ? "interrupted" : node.status}`}>${node.status}</span>
    <span class="label" title=${node.task}>${node.label}</span>
    <span class="task">${node.task.length > 60 ? `${node.task.slice(0, 60)}…` : node.task}</span>
    <span class="muted small">${node.doing || spent}${node.reason ? ` · ${node.reason}` : ""}</span>`;
  if (node.children.length === 0) return html`<li class="agent leaf" data-agent=${id}>${line}</li>`;
  return html`<li class="agent" data-agent=${id}>
    <details open>
      <summary>${line} <span class="muted small">(${node.children.length})</span></summary>
      <ul>${node.children.map((c) => html`<${NodeView} key=${c} agents=${agents} id=${c} words=${words} />`)}</ul>
    </details>
  </li>`;
}

export function TreeView({ agents, roots }: { agents: Agents; roots: readonly string[]; version: number }) {
  const [search, setSearch] = useState("");
  if (roots.length === 0) return null;
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const running = [...agents.values()].filter((a) => a.status === "running").length;
  return html`<details class="tree" open>
    <summary>sub-agents: ${agents.size}, ${running} running</summary>
    <input
      class="filter"
      type="search"
      placeholder="search the sub-agents"
      value=${search}
      onInput=${(e: Event) => setSearch((e.target as HTMLInputElement).value)}
    />
    <ul>${roots.map((id) => html`<${NodeView} key=${id} agents=${agents} id=${id} words=${words} />`)}</ul>
  </details>`;
}
