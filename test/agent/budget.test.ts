import { describe, expect, it } from "vitest";
import { Budget } from "../../src/agent/budget/budget.js";

describe("budget trees", () => {
  it("counts a child's tokens and cost for every ancestor", () => {
    const root = new Budget({ maxTokens: 1000 });
    const child = root.child();
    const grandchild = child.child();
    grandchild.recordCall(300, 0.5);
    expect(child.spent()).toMatchObject({ turns: 0, tokens: 300, cost: 0.5 });
    expect(root.spent()).toMatchObject({ turns: 0, tokens: 300, cost: 0.5 });
    expect(grandchild.spent()).toMatchObject({ turns: 1, tokens: 300 });
  });

  it("stops every agent of the tree once the root's shared limit is reached", () => {
    const root = new Budget({ maxTokens: 1000 });
    const a = root.child();
    const b = root.child();
    a.recordCall(600, 0);
    expect(b.check()).toBeUndefined();
    b.recordCall(500, 0);
    expect(a.check()?.budget).toBe("max-tokens");
    expect(b.check()?.budget).toBe("max-tokens");
    expect(root.check()?.message).toMatch(/1100 of 1000 tokens/);
  });

  it("keeps turn limits per agent: the root's turns do not stop its children", () => {
    const root = new Budget({ maxTurns: 1 });
    root.recordCall(10, 0);
    expect(root.check()?.budget).toBe("max-turns");
    const child = root.child({ maxTurns: 2 });
    expect(child.check()).toBeUndefined();
    child.recordCall(10, 0);
    child.recordCall(10, 0);
    expect(child.check()?.budget).toBe("max-turns");
  });

  it("fails closed on cost when a price is unknown", () => {
    const root = new Budget({ maxCost: 1 });
    root.child().recordCall(10, null);
    expect(root.check()?.message).toMatch(/this model is unpriced/);
  });
});
