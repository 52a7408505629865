// The tree view's rows (src/webui/app/tree-rows.ts): depth-first, subtree sums, folded subtrees left
// out, a search keeps matches and the path down to them (ignoring folds), at a thousand nodes.
import { describe, expect, it } from "vitest";
import type { AgentNode } from "../../src/webui/app/transcript.js";
import { treeRows } from "../../src/webui/app/tree-rows.js";

function tree(count: number, fanout: number): { agents: Map<string, AgentNode>; roots: string[] } {
  const agents = new Map<string, AgentNode>();
  const roots: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `a${i}`;
    const parent = i < fanout ? undefined : `a${Math.floor((i - fanout) / fanout)}`;
    agents.set(id, {
      id,
      parent,
      label: id,
      task: i === 777 ? "find the needle" : `task ${i}`,
      model: "m",
      status: i % 2 ? "running" : "done",
      tokens: 10,
      cost: 0.5,
      events: 0,
      doing: "",
      children: [],
    });
    if (parent) agents.get(parent)?.children.push(id);
    else roots.push(id);
  }
  return { agents, roots };
}

describe("the tree's rows", () => {
  it("every node once, depth-first, with its subtree's sums", () => {
    const { agents, roots } = tree(1000, 10);
    const rows = treeRows(agents, roots, new Set(), []);
    expect(rows).toHaveLength(1000);
    expect(new Set(rows.map((r) => r.node.id)).size).toBe(1000);
    const top = rows.filter((r) => r.depth === 0);
    expect(top).toHaveLength(10);
    expect(top.reduce((sum, r) => sum + r.subtree.agents, 0)).toBe(1000);
    expect(top.reduce((sum, r) => sum + r.subtree.tokens, 0)).toBe(10_000);
    expect(top.reduce((sum, r) => sum + r.subtree.running, 0)).toBe(500);
    // A child's row follows its parent's.
    const at = rows.findIndex((r) => r.node.id === "a0");
    expect(rows[at + 1]?.node.parent).toBe("a0");
  });

  it("a folded subtree keeps its row and sums, not its descendants; a search finds inside it", () => {
    const { agents, roots } = tree(1000, 10);
    const folded = treeRows(agents, roots, new Set(["a0"]), []);
    const a0 = folded.find((r) => r.node.id === "a0");
    expect(a0?.folded).toBe(true);
    expect(folded.length).toBe(1000 - ((a0?.subtree.agents ?? 0) - 1));
    const found = treeRows(agents, roots, new Set(["a0", "a7"]), ["needle"]);
    expect(found.at(-1)?.node.id).toBe("a777");
    // The path down to it: each row the parent of the next.
    for (let i = 1; i < found.length; i++) expect(found[i]?.node.parent).toBe(found[i - 1]?.node.id);
    expect(found[0]?.depth).toBe(0);
  });

  it("a subtree holding an unpriced sub-agent has no dollar sum, as the node itself has none", () => {
    const { agents, roots } = tree(3, 1);
    // a0 ← a1 ← a2: a2 finished on a model without prices; a1 is still running (nothing counted yet).
    Object.assign(agents.get("a1") ?? {}, { status: "running", cost: undefined });
    Object.assign(agents.get("a2") ?? {}, { status: "done", cost: null });
    const rows = treeRows(agents, roots, new Set(), []);
    expect(rows.map((r) => r.subtree.cost)).toEqual([null, null, null]);
    Object.assign(agents.get("a2") ?? {}, { cost: 0.25 });
    expect(treeRows(agents, roots, new Set(), []).map((r) => r.subtree.cost)).toEqual([0.75, 0.25, 0.25]);
  });
});
