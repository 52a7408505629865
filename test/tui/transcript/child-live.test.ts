import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/core/events.js";
import { ChildLiveOutput } from "../../../src/tui/agents/child-live.js";

const out = (agent: string, text: string, callId = "c1"): AgentEvent => ({
  type: "cell_output_delta",
  callId,
  text,
  agent,
});

describe("a sub-agent's streamed output kept for its view", () => {
  it("keeps one cell's consecutive output as one delta, and apart from the next cell's and the model's", () => {
    const live = new ChildLiveOutput();
    for (let i = 0; i < 500; i++) live.apply(out("a", `line ${i}\n`));
    live.apply({ type: "text_delta", turn: 2, delta: "thinking ", agent: "a" });
    live.apply({ type: "text_delta", turn: 2, delta: "aloud", agent: "a" });
    live.apply(out("a", "next cell\n", "c2"));
    live.apply(out("b", "other child\n"));
    const events = live.events("a");
    expect(events.map((e) => e.type)).toEqual(["cell_output_delta", "text_delta", "cell_output_delta"]);
    expect((events[0] as { text: string }).text).toBe(
      Array.from({ length: 500 }, (_, i) => `line ${i}\n`).join(""),
    );
    expect(events[1]).toMatchObject({ delta: "thinking aloud", turn: 2, agent: "a" });
    expect(events[2]).toMatchObject({ text: "next cell\n", callId: "c2" });
    expect(live.events("b")).toEqual([out("b", "other child\n")]);
    expect(live.events("nobody")).toEqual([]);
  });

  it("keeps the last characters up to its bound, starting at a whole line", () => {
    const live = new ChildLiveOutput(100);
    for (let i = 0; i < 50; i++) live.apply(out("a", `line ${String(i).padStart(2, "0")}\n`)); // 8 chars each
    const text = live
      .events("a")
      .map((e) => (e as { text: string }).text)
      .join("");
    expect(text.length).toBeLessThanOrEqual(100);
    expect(text.startsWith("line ")).toBe(true);
    expect(text.endsWith("line 49\n")).toBe(true);
    expect(text).toBe(Array.from({ length: 12 }, (_, i) => `line ${38 + i}\n`).join(""));
  });

  it("forgets a step once the journal has it, text taken back by a retry, and a finished child", () => {
    const live = new ChildLiveOutput();
    live.apply(out("a", "printed\n"));
    live.apply({ type: "cell_output", agent: "a" } as unknown as AgentEvent);
    expect(live.events("a")).toEqual([]);
    live.apply({ type: "text_delta", turn: 3, delta: "first try", agent: "a" });
    live.apply({ type: "text_reset", turn: 3, agent: "a" });
    live.apply({ type: "text_delta", turn: 3, delta: "second", agent: "a" });
    expect(live.events("a")).toEqual([{ type: "text_delta", turn: 3, delta: "second", agent: "a" }]);
    live.apply({ type: "child_finished", id: "a" } as unknown as AgentEvent);
    expect(live.events("a")).toEqual([]);
  });

  it("ignores the root agent's own output and hands out copies", () => {
    const live = new ChildLiveOutput();
    live.apply({ type: "cell_output_delta", callId: "c", text: "root\n" });
    live.apply(out("a", "x"));
    const copy = live.events("a");
    copy.pop();
    expect(live.events("a")).toHaveLength(1);
  });
});
