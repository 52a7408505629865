// The session page's transcript (src/webui/app/transcript.ts) folds events into what it shows: a replay
// that overlaps what the page has adds nothing, streamed text gives way to the journal's, live cell
// output grows until the cell's result replaces it, and a child's events go to the tree of the root's.
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/core/events.js";
import { Transcript } from "../../src/webui/app/transcript.js";

const usage = {
  inputTokens: 1,
  outputTokens: 1,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  estimated: false,
};
let t = 0;
const at = () => new Date(Date.UTC(2026, 11, 4, 12, 0, t++)).toISOString();

function response(n: number, turn: number, text: string): AgentEvent {
  return {
    n,
    t: at(),
    type: "model_response",
    turn,
    text,
    toolCalls: [],
    usage,
    cost: null,
    stopReason: "stop",
    requestBytes: 1,
    attempts: 1,
    durationMs: 1,
  } as AgentEvent;
}
const user = (n: number, text: string) => ({ n, t: at(), type: "user", text }) as AgentEvent;

describe("the web page's transcript", () => {
  it("a replay overlapping what the page has adds nothing", () => {
    const tr = new Transcript();
    const history = [user(1, "hi"), response(2, 1, "hello"), user(3, "again"), response(4, 2, "once more")];
    for (const e of history.slice(0, 3)) tr.apply(e);
    // A reconnect that replays from an older point than the page's last event.
    for (const e of history) tr.apply(e);
    expect(tr.items.map((i) => (i.kind === "user" || i.kind === "answer" ? i.text : i.kind))).toEqual([
      "hi",
      "hello",
      "again",
      "once more",
    ]);
    expect(tr.lastN).toBe(4);
  });

  it("streamed text is replaced by the journal's answer; a reset starts the turn's text again", () => {
    const tr = new Transcript();
    tr.apply({ type: "text_delta", turn: 1, delta: "Hel" });
    tr.apply({ type: "text_reset", turn: 1 });
    tr.apply({ type: "text_delta", turn: 1, delta: "Hello wor" });
    tr.apply({ type: "reasoning_delta", turn: 1, delta: "thinking it over" });
    expect(tr.items).toMatchObject([{ kind: "answer", text: "Hello wor", streaming: true }]);
    tr.apply(response(5, 1, "Hello world"));
    expect(tr.items).toMatchObject([
      { kind: "answer", text: "Hello world", reasoning: "thinking it over", streaming: false },
    ]);
    // The same words as the final event: not shown twice.
    tr.apply({
      n: 6,
      t: at(),
      type: "final",
      text: "Hello world",
      spent: { turns: 1, tokens: 2, elapsedMs: 1, cost: null },
    });
    expect(tr.items).toHaveLength(1);
  });

  it("a cell whose turn ended without its result (its kernel could not start) is not left running", () => {
    const tr = new Transcript();
    tr.apply({ n: 1, t: at(), type: "cell", turn: 1, callId: "c1", code: "print(1)" } as AgentEvent);
    expect(tr.items).toMatchObject([{ kind: "cell" }]);
    expect(tr.items[0]).not.toHaveProperty("status");
    tr.apply({ n: 2, t: at(), type: "error", message: "the kernel exited while starting" } as AgentEvent);
    expect(tr.items[0]).toMatchObject({ kind: "cell", status: "not run to its end" });
    // A result that comes after all the same (an interrupt said first) is shown as it is.
    tr.apply({ n: 3, t: at(), type: "cell", turn: 2, callId: "c2", code: "sleep()" } as AgentEvent);
    tr.apply({ n: 4, t: at(), type: "interrupted", reason: "interrupted by the user" } as AgentEvent);
    tr.apply({
      n: 5,
      t: at(),
      type: "cell_output",
      turn: 2,
      callId: "c2",
      status: "error",
      output: "KeyboardInterrupt",
      durationMs: 5,
      imageFiles: [],
    } as unknown as AgentEvent);
    expect(tr.items.filter((i) => i.kind === "cell")[1]).toMatchObject({
      status: "error",
      output: "KeyboardInterrupt",
    });
  });

  it("a cell's live output grows until its result replaces it; a child's events stay out", () => {
    const tr = new Transcript();
    tr.apply({ n: 1, t: at(), type: "cell", turn: 1, callId: "c1", code: "print(1)" } as AgentEvent);
    tr.apply({ type: "cell_output_delta", callId: "c1", text: "1\n" });
    tr.apply({ type: "cell_output_delta", callId: "c1", text: "2\n" });
    expect(tr.items).toMatchObject([{ kind: "cell", output: "1\n2\n" }]);
    // A child's event: it goes to the tree (a node, under the root, until its start is seen), not to the items.
    tr.apply({ ...user(1, "from a child"), agent: "child1" } as AgentEvent);
    expect(tr.roots).toEqual(["child1"]);
    tr.apply({
      n: 2,
      t: at(),
      type: "cell_output",
      turn: 1,
      callId: "c1",
      executionCount: 1,
      status: "ok",
      output: "1\n2\n3\n",
      outputChars: 6,
      truncated: false,
      imageFiles: ["outputs/cell-1-0.png"],
      durationMs: 1200,
    } as AgentEvent);
    expect(tr.items).toMatchObject([
      { kind: "cell", output: "1\n2\n3\n", status: "ok", images: ["cell-1-0.png"], durationMs: 1200 },
    ]);
    expect(tr.childEvents).toBe(1);
    expect(tr.items).toHaveLength(1);
  });
});

describe("the web page's tree of sub-agents", () => {
  it("nests each child under the agent that started it and closes it with what it spent", () => {
    const tr = new Transcript();
    const spawned = (n: number, id: string, agent?: string) =>
      ({
        n,
        t: at(),
        type: "child_spawned",
        id,
        name: id,
        task: `task ${id}`,
        model: "m",
        variables: [],
        agent,
      }) as AgentEvent;
    tr.apply(spawned(1, "a"));
    tr.apply(spawned(7, "b", "a"));
    tr.apply({ n: 8, t: at(), type: "cell", turn: 1, callId: "x", code: "1", agent: "b" } as AgentEvent);
    expect(tr.agents.get("b")).toMatchObject({ parent: "a", status: "running", doing: "running a cell" });
    tr.apply({
      n: 2,
      t: at(),
      type: "child_finished",
      id: "a",
      name: "a",
      status: "done",
      spent: { turns: 2, tokens: 1234, elapsedMs: 5, cost: 0.5 },
    } as AgentEvent);
    expect(tr.roots).toEqual(["a"]);
    expect(tr.agents.get("a")).toMatchObject({ children: ["b"], status: "done", tokens: 1234, cost: 0.5 });
  });

  it("a child's event changes the tree's revision only; the root's change what the transcript draws", () => {
    // The page redraws the transcript and plots only when itemsRevision moves (transcript-parts.ts).
    const tr = new Transcript();
    tr.apply(user(1, "fan out"));
    const items = tr.itemsRevision;
    const tree = tr.treeRevision;
    tr.apply({
      n: 2,
      t: at(),
      type: "child_spawned",
      id: "a",
      name: "a",
      task: "t",
      model: "m",
      variables: [],
    } as AgentEvent);
    expect([tr.itemsRevision, tr.treeRevision]).toEqual([items + 1, tree + 1]);
    for (let i = 0; i < 5; i++)
      expect(tr.apply({ type: "model_request", turn: i, messages: 1, agent: "a" } as AgentEvent)).toBe(true);
    expect(tr.itemsRevision).toBe(items + 1);
    expect(tr.treeRevision).toBe(tree + 6);
    expect(tr.agents.get("a")).toMatchObject({ events: 5, doing: "asking the model" });
    // A root event told twice (a replay) changes neither.
    expect(tr.apply(user(1, "fan out"))).toBe(false);
    expect([tr.itemsRevision, tr.treeRevision]).toEqual([items + 1, tree + 6]);
  });

  it("a rewind drops the message gone back to and everything after it, and says so", () => {
    const tr = new Transcript();
    for (const e of [user(1, "first"), response(2, 1, "one"), user(3, "second")]) tr.apply(e);
    tr.apply({ n: 4, t: at(), type: "cell", turn: 2, callId: "c1", code: "print(2)" } as AgentEvent);
    tr.apply({ type: "cell_output_delta", callId: "c1", text: "2\n" } as AgentEvent);
    tr.apply({ type: "text_delta", turn: 2, delta: "tw" });
    tr.apply(response(5, 2, "two"));
    tr.apply({ n: 6, t: at(), type: "rewind", to: 3, text: "second", files: false, note: "…" } as AgentEvent);
    expect(
      tr.items.map((i) =>
        i.kind === "notice" ? i.text : i.kind === "cell" ? i.code : "text" in i ? i.text : i.kind,
      ),
    ).toEqual(["first", "one", 'rewound to before "second"; the kernel keeps its variables']);
    // The rewound conversation goes on: the next turn's answer is a new item, not the dropped one.
    tr.apply(user(7, "second again"));
    tr.apply({ type: "text_delta", turn: 2, delta: "again" });
    tr.apply(response(8, 2, "two again"));
    expect(
      tr.items.slice(-2).map((i) => (i.kind === "user" || i.kind === "answer" ? i.text : i.kind)),
    ).toEqual(["second again", "two again"]);
    // A late output of the dropped cell changes nothing.
    expect(tr.apply({ type: "cell_output_delta", callId: "c1", text: "late" } as AgentEvent)).toBe(false);
  });
  it("learning's events are counted for the learning view and shown as the terminal's lines", () => {
    const tr = new Transcript();
    tr.apply(user(1, "go"));
    tr.apply({ n: 2, t: at(), type: "harness_probation", entries: ["mem-aaaaaa"] } as AgentEvent);
    tr.apply({
      n: 3,
      t: at(),
      type: "harness_verdict",
      scope: "probation",
      rev: "rabc",
      verdict: "neutral",
      final: false,
      summary: "",
      entries: ["mem-aaaaaa"],
    } as AgentEvent);
    tr.apply(user(4, "more"));
    expect(tr.learningEvents).toBe(2);
    expect(
      tr.items.filter((i) => i.kind === "notice").map((i) => (i.kind === "notice" ? i.text : "")),
    ).toEqual([
      "✎ starting with 1 lesson on probation from earlier sessions — relm harness list --scope probation",
      "⚖ lesson mem-aaaaaa on probation (revision rabc) neutral so far",
    ]);
  });
});
