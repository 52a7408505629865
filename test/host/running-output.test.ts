// The host's memory of running cells' output so far, for clients that attach mid-cell: the session's
// own cell and each sub-agent's, kept apart, bounded, and forgotten when the cell ends.
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/core/events.js";
import { RunningOutput } from "../../src/host/running-output.js";

function cell(n: number, callId: string, agent?: string): AgentEvent {
  return { type: "cell", n, turn: 1, callId, code: "print(1)", ...(agent ? { agent } : {}) } as AgentEvent;
}

function delta(callId: string, text: string, agent?: string): AgentEvent {
  return { type: "cell_output_delta", callId, text, ...(agent ? { agent } : {}) } as AgentEvent;
}

function replayed(output: RunningOutput, after: number, child?: { id: string; after: number }) {
  const events: { callId: string; text: string; agent?: string }[] = [];
  output.replay(after, (e) => events.push(e as (typeof events)[number]), child);
  return events;
}

describe("RunningOutput", () => {
  it("keeps the session's and a sub-agent's running output apart, each for its own page", () => {
    const output = new RunningOutput();
    output.note(cell(7, "root-call"));
    output.note(cell(3, "child-call", "kid1"));
    output.note(delta("root-call", "root says hi\n"));
    output.note(delta("child-call", "child says hi\n", "kid1"));

    // The session's page: only the root's, whatever sub-agents run.
    expect(replayed(output, 6)).toEqual([
      { type: "cell_output_delta", callId: "root-call", text: "root says hi\n" },
    ]);
    // A client that has the root's cell already saw its output live.
    expect(replayed(output, 7)).toEqual([]);
    // The child's page, its journal before the child's cell: the child's output, with its id.
    expect(replayed(output, 7, { id: "kid1", after: 2 })).toEqual([
      { type: "cell_output_delta", callId: "child-call", text: "child says hi\n", agent: "kid1" },
    ]);
    expect(replayed(output, 7, { id: "kid1", after: 3 })).toEqual([]);
    expect(replayed(output, 7, { id: "other", after: 0 })).toEqual([]);
  });

  it("forgets a cell once it ends, and another agent's end does not end it", () => {
    const output = new RunningOutput();
    output.note(cell(3, "a", "kid1"));
    output.note(delta("a", "kid1 output\n", "kid1"));
    output.note(cell(4, "b", "kid2"));
    output.note({ type: "cell_output", callId: "b", output: "", agent: "kid2" } as unknown as AgentEvent);
    expect(replayed(output, 0, { id: "kid2", after: 0 })).toEqual([]);
    expect(replayed(output, 0, { id: "kid1", after: 0 })).toHaveLength(1);
    output.note({ type: "final", text: "done", agent: "kid1" } as unknown as AgentEvent);
    expect(replayed(output, 0, { id: "kid1", after: 0 })).toEqual([]);
  });

  it("bounds a sub-agent's output: the first and the newest parts, with what was skipped between", () => {
    const output = new RunningOutput();
    output.note(cell(1, "c", "kid"));
    const line = `${"x".repeat(99)}\n`;
    for (let i = 0; i < 1_000; i++) output.note(delta("c", line, "kid"));
    const [event] = replayed(output, 0, { id: "kid", after: 0 });
    const text = event?.text ?? "";
    expect(text.length).toBeLessThan(30_000);
    expect(text).toMatch(/\[relm: [\d,]+ characters skipped in the live view/);
    expect(text.endsWith(line)).toBe(true);
  });
});
