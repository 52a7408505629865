// Prompts become relm messages the way the docs say, and the host's events become session/update
// notifications. (Slash commands are the table's: test/commands/table.test.ts.)
import { describe, expect, it } from "vitest";
import { messageOf } from "../../src/acp/session.js";
import { LIVE_CODE_CHARS, LIVE_TAIL_LINES, liveTail, UpdateMapper } from "../../src/acp/updates.js";
import type { AgentEvent } from "../../src/agent/core/events.js";

describe("ACP prompts", () => {
  it("keeps text, names linked files by path and puts embedded files in kernel variables", () => {
    const { text, variables } = messageOf([
      { type: "text", text: "Review" },
      { type: "resource_link", uri: "file:///repo/src/a%20b.ts", name: "a b.ts" },
      { type: "text", text: "and" },
      { type: "resource", resource: { uri: "file:///repo/data/2024-sales.csv", text: "x,y\n1,2\n" } },
      { type: "resource", resource: { uri: "file:///other/2024-sales.csv", text: "z\n" } },
    ]);
    expect(text).toBe(
      "Review /repo/src/a b.ts and /repo/data/2024-sales.csv (its content is in the kernel variable sales_csv)  /other/2024-sales.csv (its content is in the kernel variable sales_csv_2)",
    );
    expect(variables).toEqual([
      { name: "sales_csv", text: "x,y\n1,2\n" },
      { name: "sales_csv_2", text: "z\n" },
    ]);
  });
});

describe("ACP updates", () => {
  const at = (n: number, body: Record<string, unknown>) =>
    ({ n, t: "2026-01-01T00:00:00Z", ...body }) as AgentEvent;

  it("sends a streamed answer once, and a replayed one from its model_response", () => {
    const live = new UpdateMapper("/nonexistent");
    expect(live.map({ type: "text_delta", turn: 1, delta: "Hel" })).toHaveLength(1);
    expect(live.map({ type: "text_delta", turn: 1, delta: "lo" })).toHaveLength(1);
    expect(live.map(at(4, { type: "model_response", turn: 1, text: "Hello", toolCalls: [] }))).toEqual([]);

    const replay = new UpdateMapper("/nonexistent");
    expect(replay.map(at(4, { type: "model_response", turn: 1, text: "Hello", toolCalls: [] }))).toEqual([
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello" } },
    ]);
  });

  it("coalesces live output per cell and ends the call with the journaled output and status", () => {
    const m = new UpdateMapper("/nonexistent");
    const [start] = m.map(at(5, { type: "cell", turn: 1, callId: "c1", code: "\n# load\nimport x" }));
    expect(start).toMatchObject({
      sessionUpdate: "tool_call",
      toolCallId: "cell:c1",
      title: "# load",
      kind: "execute",
    });
    m.map({ type: "cell_output_delta", callId: "c1", text: "a\n" });
    m.map({ type: "cell_output_delta", callId: "c1", text: "b\n" });
    expect(m.pending).toBe(true);
    const flushed = m.flush();
    expect(flushed).toHaveLength(1);
    expect(JSON.stringify(flushed[0])).toContain("a\\nb");
    expect(m.flush()).toEqual([]);
    const [end] = m.map(
      at(6, {
        type: "cell_output",
        turn: 1,
        callId: "c1",
        executionCount: 1,
        status: "error",
        output: "a\nb\nTraceback",
        outputChars: 12,
        truncated: false,
        imageFiles: [],
        durationMs: 5,
      }),
    );
    expect(end).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "cell:c1", status: "failed" });
  });

  it("a sub-agent's failed cell names its exception, not the traceback's first line", () => {
    const m = new UpdateMapper("/nonexistent");
    m.map(at(3, { type: "child_spawned", id: "k1", name: "sa", task: "sleep", model: "m", variables: [] }));
    m.map({
      ...at(4, { type: "cell", turn: 1, callId: "c1", code: "import time; time.sleep(60)" }),
      agent: "k1",
    });
    const traceback = `${"-".repeat(75)}\nKeyboardInterrupt                         Traceback (most recent call last)\nCell In[1], line 1\n----> 1 import time; time.sleep(60)\n\nKeyboardInterrupt: `;
    m.map({
      ...at(5, {
        type: "cell_output",
        turn: 1,
        callId: "c1",
        executionCount: 1,
        status: "error",
        output: traceback,
        outputChars: traceback.length,
        truncated: false,
        imageFiles: [],
        error: { name: "KeyboardInterrupt", value: "" },
        durationMs: 5,
      }),
      agent: "k1",
    });
    const shown = JSON.stringify(m.flush());
    expect(shown).toContain("✗ error: KeyboardInterrupt");
    expect(shown).not.toContain("✗ error: ---");
  });
});

describe("a running cell's live view", () => {
  const at = (n: number, body: Record<string, unknown>) =>
    ({ n, t: "2026-01-01T00:00:00Z", ...body }) as AgentEvent;
  const lines = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => `line ${from + i} ${"x".repeat(30)}\n`).join("");

  it("is the last lines of the output, saying how many came before; short output is whole", () => {
    expect(liveTail(lines(3), 3)).toBe(lines(3));
    const tail = liveTail(lines(500), 500);
    expect(tail).toBe(
      `… ${500 - LIVE_TAIL_LINES} earlier line(s) not shown while it runs (all of it when the cell ends)\n${lines(LIVE_TAIL_LINES, 500 - LIVE_TAIL_LINES)}`,
    );
    // One very long line: its end, said to be cut.
    expect(liveTail("y".repeat(50_000), 0)).toMatch(/^… the start of a long line not shown .*\ny{4000}$/);
  });

  it("each live update carries the code and that tail, not all the output so far; the end carries it all", () => {
    const m = new UpdateMapper("/nonexistent");
    const code = `print('x')\n${"# pad\n".repeat(2000)}`;
    m.map(at(1, { type: "cell", turn: 1, callId: "c1", code }));
    const sizes: number[] = [];
    for (let i = 0; i < 20; i++) {
      m.map({ type: "cell_output_delta", callId: "c1", text: lines(100, i * 100) });
      const [update] = m.flush();
      sizes.push(JSON.stringify(update).length);
      expect(JSON.stringify(update)).toContain(`line ${i * 100 + 99} `);
    }
    // Bounded whatever was printed before: 2 000 lines never make an update bigger than 100 did.
    expect(Math.max(...sizes)).toBeLessThan(LIVE_CODE_CHARS + 4000 + 500);
    expect(Math.max(...sizes) - Math.min(...sizes.slice(1))).toBeLessThan(200);
    const [end] = m.map(
      at(2, {
        type: "cell_output",
        turn: 1,
        callId: "c1",
        executionCount: 1,
        status: "ok",
        output: lines(2000),
        outputChars: 2000,
        truncated: false,
        imageFiles: [],
        durationMs: 5,
      }),
    );
    expect(JSON.stringify(end)).toContain("line 0 ");
    expect(JSON.stringify(end)).toContain("# pad\\n# pad");
  });
});
