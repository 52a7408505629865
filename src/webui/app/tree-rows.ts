// The tree of sub-agents as the rows the view draws: depth-first, each subtree's spend summed, folded
// subtrees' rows left out, and with a search only the nodes that match and the path down to them. The
// view draws only the rows in sight (tree-view.ts), so a tree of a thousand nodes costs one pass here
// and a screenful of elements.
import type { AgentNode } from "./transcript.js";

type Agents = ReadonlyMap<string, AgentNode>;

export interface TreeRow {
  node: AgentNode;
  depth: number;
  /**
   * The node and everything below it: agents, tokens and cost spent (those that finished; null once
   * one of them spent on a model without prices, as the node's own cost is then).
   */
  subtree: { agents: number; tokens: number; cost: number | null; running: number };
  folded: boolean;
}

/** Whether the node's own words contain every word. */
function hits(node: AgentNode, words: readonly string[]): boolean {
  const hay =
    `${node.id} ${node.label} ${node.task} ${node.model} ${node.status} ${node.where ?? ""}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

/**
 * The rows to draw. `folded`: the ids whose subtrees are folded (ignored while searching, so a match
 * inside a folded subtree is shown). `words`: the search, lower case.
 */
export function treeRows(
  agents: Agents,
  roots: readonly string[],
  folded: ReadonlySet<string>,
  words: readonly string[],
): TreeRow[] {
  const rows: TreeRow[] = [];
  // Returns the subtree's totals and whether anything in it matched; appends its rows when they show.
  const visit = (id: string, depth: number, shown: boolean): { sum: TreeRow["subtree"]; hit: boolean } => {
    const node = agents.get(id);
    const sum: TreeRow["subtree"] = { agents: 0, tokens: 0, cost: 0, running: 0 };
    if (!node) return { sum, hit: false };
    sum.agents = 1;
    sum.tokens = node.tokens ?? 0;
    sum.cost = node.cost === undefined ? 0 : node.cost;
    sum.running = node.status === "running" ? 1 : 0;
    const self = words.length === 0 || hits(node, words);
    const isFolded = words.length === 0 && folded.has(id);
    const row: TreeRow = { node, depth, subtree: sum, folded: isFolded };
    const at = rows.length;
    if (shown) rows.push(row);
    let below = false;
    for (const child of node.children) {
      const r = visit(child, depth + 1, shown && !isFolded);
      sum.agents += r.sum.agents;
      sum.tokens += r.sum.tokens;
      sum.cost = sum.cost === null || r.sum.cost === null ? null : sum.cost + r.sum.cost;
      sum.running += r.sum.running;
      below ||= r.hit;
    }
    const hit = self || below;
    // A search drops the rows of subtrees where nothing matched (this one and what it pushed).
    if (shown && !hit) rows.length = at;
    return { sum, hit };
  };
  for (const id of roots) visit(id, 0, true);
  return rows;
}
