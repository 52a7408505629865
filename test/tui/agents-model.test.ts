// The agent tree's model in the terminal UI, in-process: children followed from their events to their
// rows (status, steps, spend).
import { describe, expect, it } from "vitest";
import { AgentsModel } from "../../src/tui/agents/agents-model.js";
import { hostEvent as ev, usageOf as usage } from "../support/events.js";

describe("AgentsModel", () => {
  it("follows children from spawn to finish, labelled by item, with statuses, steps and spend", () => {
    const m = new AgentsModel();
    m.apply(
      ev({
        type: "child_spawned",
        id: "c1",
        name: "map-0",
        label: "'alpha'",
        task: "t",
        model: "m",
        variables: [],
      }),
    );
    m.apply(ev({ type: "child_spawned", id: "c2", name: "map-1", task: "t", model: "m", variables: [] }));
    expect(m.flatten().map((r) => r.node.label)).toEqual(["'alpha'", "map-1"]);
    m.apply(ev({ type: "model_request", turn: 1, messages: 1 }, "c1"));
    expect(m.get("c1")?.status).toBe("thinking");
    m.apply(
      ev(
        {
          type: "model_response",
          turn: 1,
          text: "",
          toolCalls: [{ id: "x", name: "ipython", arguments: "{}" }],
          usage: usage(100, 20),
          cost: 0.01,
          stopReason: "tool_calls",
          requestBytes: 1,
          attempts: 1,
          durationMs: 5,
        },
        "c1",
      ),
    );
    m.apply(ev({ type: "cell", turn: 1, callId: "x", code: "# load\nimport json\nprint(1)" }, "c1"));
    expect(m.get("c1")).toMatchObject({ status: "running", step: "import json", tokens: 120, cost: 0.01 });
    // A grandchild makes its parent wait.
    m.apply(
      ev(
        { type: "child_spawned", id: "g1", name: "child-1", task: "deeper", model: "m", variables: [] },
        "c1",
      ),
    );
    expect(m.get("c1")?.status).toBe("waiting");
    expect(m.flatten().map((r) => [r.node.id, r.depth])).toEqual([
      ["c1", 0],
      ["g1", 1],
      ["c2", 0],
    ]);
    m.apply(
      ev(
        {
          type: "child_finished",
          id: "g1",
          name: "child-1",
          status: "done",
          result: "42",
          spent: { turns: 1, tokens: 50, elapsedMs: 9, cost: null },
        },
        "c1",
      ),
    );
    expect(m.get("c1")?.status).toBe("thinking");
    m.apply(
      ev({
        type: "child_finished",
        id: "c1",
        name: "map-0",
        status: "done",
        result: "'ALPHA'",
        spent: { turns: 2, tokens: 400, elapsedMs: 99, cost: 0.02 },
      }),
    );
    m.apply(
      ev({
        type: "child_finished",
        id: "c2",
        name: "map-1",
        status: "cancelled",
        reason: "interrupted by the user",
        spent: { turns: 0, tokens: 0, elapsedMs: 1, cost: 0 },
      }),
    );
    expect(m.get("c1")).toMatchObject({ status: "done", tokens: 400, step: "'ALPHA'" });
    expect(m.counts()).toMatchObject({ done: 2, cancelled: 1 });
    expect(m.running()).toBe(0);
  });

  it("counts a running child's llm() calls into its spend, and an unpriced one makes it unpriced", () => {
    // As the agent's own budget does (agent/budget/budget.ts addSpend): the panel must not show a dollar
    // figure for a child whose spend the host already calls unpriced.
    const m = new AgentsModel();
    m.apply(ev({ type: "child_spawned", id: "c1", name: "c", task: "t", model: "m", variables: [] }));
    const response = (cost: number | null) => ({
      type: "model_response",
      turn: 1,
      text: "",
      toolCalls: [],
      usage: usage(100, 20),
      cost,
      stopReason: "stop",
    });
    const llmCall = (cost: number | null) => ({
      type: "llm_call",
      model: "other",
      prompts: 1,
      usage: usage(10, 5),
      cost,
      durationMs: 1,
    });
    m.apply(ev(response(0.01), "c1"));
    m.apply(ev(llmCall(0.002), "c1"));
    expect(m.get("c1")?.tokens).toBe(135);
    expect(m.get("c1")?.cost).toBeCloseTo(0.012);
    m.apply(ev(llmCall(null), "c1"));
    expect(m.get("c1")).toMatchObject({ tokens: 150, cost: null });
    m.apply(ev(response(0.01), "c1"));
    expect(m.get("c1")).toMatchObject({ tokens: 270, cost: null });
  });

  it("counts the spend booked for a request a budget stopped as it streamed; other model errors cost nothing", () => {
    const m = new AgentsModel();
    m.apply(ev({ type: "child_spawned", id: "c1", name: "c", task: "t", model: "m", variables: [] }));
    m.apply(ev({ type: "model_error", turn: 1, kind: "server", status: 500, message: "failed" }, "c1"));
    expect(m.get("c1")).toMatchObject({ tokens: 0, cost: 0 });
    const stopped = {
      type: "model_error",
      turn: 1,
      kind: "budget",
      message: "the model request was stopped as it streamed: it reached --max-tokens",
      usage: usage(100, 400),
      cost: 0.003,
    };
    m.apply(ev(stopped, "c1"));
    expect(m.get("c1")?.tokens).toBe(500);
    expect(m.get("c1")?.cost).toBeCloseTo(0.003);
  });
});
