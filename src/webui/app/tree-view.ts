// The session's sub-agents as a tree, live: each node's status, label, task, where its kernel runs, what
// it is doing or (once finished) what it spent, and for a subtree the sum of what is below; a subtree
// folds, a search keeps the nodes that match (with their path), and a node's label opens its own
// transcript, and its plot button shows the tokens and cost over time of its subtree (subtree-plot.ts).
// Virtualised: rows have one height and only those in sight (and a few around) are in the
// page, so a tree of a thousand nodes updating ten times a second stays one screenful of elements.
import { html } from "htm/preact";
import { useMemo, useState } from "preact/hooks";
import { cost, tokens } from "./format.js";
import { SubtreePlot } from "./subtree-plot.js";
import type { AgentNode } from "./transcript.js";
import { type TreeRow, treeRows } from "./tree-rows.js";

/** One row's height in pixels (app.css .tree-row), and the most the box shows before it scrolls. */
const ROW_PX = 28;
const BOX_PX = 448;
/** Rows drawn beyond each edge of the box, so a quick scroll shows no gap. */
const OVERSCAN = 8;

function Row({
  session,
  row,
  top,
  toggle,
  plot,
}: {
  session: string;
  row: TreeRow;
  top: number;
  toggle: (id: string) => void;
  plot: (id: string) => void;
}) {
  const { node, subtree } = row;
  const status = node.status === "cancelled" ? "interrupted" : node.status;
  const spent = node.tokens !== undefined ? `${tokens(node.tokens)} tokens · ${cost(node.cost ?? null)}` : "";
  const below =
    node.children.length > 0
      ? `${subtree.agents - 1} below${subtree.running ? `, ${subtree.running} running` : ""} · subtree ${tokens(subtree.tokens)} tokens · ${cost(subtree.cost)}`
      : "";
  return html`<div
    class="tree-row agent"
    style=${`top:${top}px;padding-left:${0.3 + row.depth * 1.1}rem`}
    data-agent=${node.id}
    data-parent=${node.parent ?? ""}
    data-depth=${row.depth}
  >
    ${
      node.children.length > 0
        ? html`<button type="button" class="fold" aria-expanded=${!row.folded} aria-label=${row.folded ? "unfold" : "fold"} onClick=${() => toggle(node.id)}>${row.folded ? "▸" : "▾"}</button>`
        : html`<span class="fold"></span>`
    }
    <button type="button" class="plot-subtree" title="plot this subtree's tokens and cost" aria-label="plot this subtree" style="padding:0 0.2rem;border:none;background:none;cursor:pointer;color:var(--muted);font-size:0.75rem" onClick=${() => plot(node.id)}>plot</button>
    <span class=${`status ${status}`}>${node.status}</span>
    <a class="label" title=${node.task} href=${`#/s/${session}/a/${node.id}`}>${node.label}</a>
    <span class="task">${node.task.length > 60 ? `${node.task.slice(0, 60)}…` : node.task}</span>
    ${node.where ? html`<span class="where" title="where its kernel runs">${node.where}</span>` : ""}
    <span class="muted small">${[node.doing || spent, node.reason, below].filter(Boolean).join(" · ")}</span>
  </div>`;
}

/** A node as the plot names it: its label (numbered per parent, so not unique) and its task's start. */
function labelOf(node: AgentNode | undefined): string | undefined {
  if (!node) return undefined;
  return `${node.label} (${node.task.length > 40 ? `${node.task.slice(0, 40)}…` : node.task})`;
}

export function TreeView({
  session,
  agents,
  roots,
  version,
}: {
  session: string;
  agents: ReadonlyMap<string, AgentNode>;
  roots: readonly string[];
  version: number;
}) {
  const [search, setSearch] = useState("");
  const [folded, setFolded] = useState<ReadonlySet<string>>(new Set());
  const [scrollTop, setScrollTop] = useState(0);
  /** The subtree plotted: a node's id, "" for the whole tree, undefined for none. */
  const [plotted, setPlotted] = useState<string | undefined>(undefined);
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  // Again when the tree changed (version), a subtree folded or the search changed: not on a scroll.
  const rows = useMemo(() => treeRows(agents, roots, folded, words), [version, folded, search, roots]);
  if (roots.length === 0) return null;
  const toggle = (id: string) =>
    setFolded((f) => {
      const next = new Set(f);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  let running = 0;
  for (const a of agents.values()) if (a.status === "running") running++;
  const first = Math.max(0, Math.floor(scrollTop / ROW_PX) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + BOX_PX) / ROW_PX) + OVERSCAN);
  const height = rows.length * ROW_PX;
  return html`<details class="tree" open>
    <summary>sub-agents: ${agents.size}, ${running} running</summary>
    <input
      class="filter"
      type="search"
      placeholder="search the sub-agents"
      value=${search}
      onInput=${(e: Event) => setSearch((e.target as HTMLInputElement).value)}
    />
    <button type="button" class="plot-tree" onClick=${() => setPlotted("")}>plot the whole tree</button>
    ${
      plotted !== undefined
        ? html`<${SubtreePlot}
            session=${session}
            top=${plotted || undefined}
            label=${plotted ? (labelOf(agents.get(plotted)) ?? plotted) : session}
            changed=${version}
            close=${() => setPlotted(undefined)}
          />`
        : ""
    }
    <div
      class="tree-box"
      style=${`height:${Math.min(height, BOX_PX)}px`}
      data-rows=${rows.length}
      onScroll=${(e: Event) => setScrollTop((e.target as HTMLElement).scrollTop)}
    >
      <div class="tree-rows" style=${`height:${height}px`}>
        ${rows
          .slice(first, last)
          .map(
            (row, i) =>
              html`<${Row} key=${row.node.id} session=${session} row=${row} top=${(first + i) * ROW_PX} toggle=${toggle} plot=${setPlotted} />`,
          )}
      </div>
    </div>
  </details>`;
}
