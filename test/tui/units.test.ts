// The UI's pure parts, in-process: argument parsing, output folding, pastes, the status line, the queue,
// history and the transcript's blocks (the agent tree's model: agents-model.test.ts).
import { statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/core/events.js";
import { ArgumentSyntaxError, shellWords } from "../../src/commands/words.js";
import { InputHistory } from "../../src/tui/input/history.js";
import { Pastes } from "../../src/tui/input/pastes.js";
import { QueueView } from "../../src/tui/queue-view.js";
import type { SessionInfo } from "../../src/tui/session-link.js";
import { budgetLeft, contextPercent, statusLines } from "../../src/tui/status-bar.js";
import { makeTheme } from "../../src/tui/theme.js";
import { OutputBuffer } from "../../src/tui/transcript/output-buffer.js";
import { Transcript } from "../../src/tui/transcript/transcript.js";
import { tempDir } from "../support/cli.js";
import { hostEvent as ev, usageOf as usage } from "../support/events.js";

const plain = makeTheme({ NO_COLOR: "1" });

describe("shellWords", () => {
  it("splits like a shell: quotes keep spaces and are removed, backslashes escape", () => {
    expect(shellWords('on "python -m pytest -q"')).toEqual(["on", "python -m pytest -q"]);
    expect(shellWords(`a 'b "c" d' e\\ f "g \\"h\\""`)).toEqual(["a", 'b "c" d', "e f", 'g "h"']);
    expect(shellWords('x "" y')).toEqual(["x", "", "y"]);
    expect(shellWords("  ")).toEqual([]);
    expect(() => shellWords('on "npm test')).toThrow(ArgumentSyntaxError);
  });
});

describe("OutputBuffer", () => {
  it("keeps lines across chunks and rewrites a line on carriage return, even across chunks", () => {
    const b = new OutputBuffer();
    b.append("a\nprogress 10%\r");
    b.append("progress 50%\rprogress 99%");
    b.append("\ndone\r\n");
    expect(b.kept()).toEqual({ head: ["a", "progress 99%", "done"], dropped: 0, tail: [] });
  });

  it("drops the middle of a flood but counts it, keeping head and tail", () => {
    const b = new OutputBuffer({ keepHead: 3, keepTail: 5 });
    for (let i = 0; i < 1000; i++) b.append(`line ${i}\n`);
    expect(b.lineCount()).toBe(1000);
    expect(b.first(3)).toEqual(["line 0", "line 1", "line 2"]);
    expect(b.last(2)).toEqual(["line 998", "line 999"]);
    const kept = b.kept();
    expect(kept.head.length + kept.tail.length + kept.dropped).toBe(1000);
    expect(kept.tail.length).toBeLessThanOrEqual(10);
  });
});

describe("Pastes", () => {
  it("turns held pastes into variable references and drops the ones deleted from the input", () => {
    const p = new Pastes();
    p.noteExisting("paste_2");
    const kept = p.hold("line one\nline two");
    const dropped = p.hold("x".repeat(5000));
    expect(kept).toBe("[kernel variable paste_3: 17 chars, 2 lines]");
    expect(dropped).toMatch(/^\[kernel variable paste_4: 5,000 chars, 1 line\]$/);
    const { text, variables } = p.take(`look at ${kept} please`);
    expect(variables).toEqual([{ name: "paste_3", text: "line one\nline two" }]);
    expect(text).toContain("`paste_3`");
    expect(text).not.toContain("[paste_3");
    expect(p.take("nothing").variables).toEqual([]);
  });
});

function info(over: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id: "abc12345",
    title: "t",
    cwd: "/tmp/project",
    provider: "openai",
    model: "gpt-test",
    status: "running",
    busy: true,
    queued: 0,
    contextWindow: 200_000,
    contextTokens: 50_000,
    usage: { input: 123_456, output: 7_890, cached: 100_000, cacheWrite: 0 },
    tokens: 131_346,
    cost: 0.4567,
    elapsedMs: 60_000,
    limits: { maxTurns: 10, maxCost: 2 },
    spent: { turns: 3, tokens: 131_346, elapsedMs: 60_000, cost: 0.4567 },
    kernel: "busy",
    sandboxed: false,
    mode: "full",
    goal: "ship it",
    autonomy: { gates: ["npm test"] },
    branch: "main",
    compactAt: 0.8,
    ...over,
  };
}

describe("status line", () => {
  it("shows context use, tokens, cost, budget left, kernel, goal, autonomy, id and branch", () => {
    const i = info();
    expect(contextPercent(i)).toBe(25);
    expect(budgetLeft(i)).toBe("budget 7 turns · $1.543 left");
    const [first, second] = statusLines(
      { info: i, model: "x", provider: "y", cwd: "/", branch: null, link: "live" },
      200,
      plain,
    );
    expect(first).toBe(
      "gpt-test via openai │ ctx 25% │ ↑123k ↓7.9k (100k cached) │ $0.4567 │ budget 7 turns · $1.543 left │ kernel busy",
    );
    expect(second).toBe("◎ ship it │ autonomous (1 gate) │ abc12345 │ /tmp/project (main)");
    expect(
      statusLines(
        { info: info({ cost: null }), model: "", provider: "", cwd: "/", branch: null, link: "live" },
        200,
        plain,
      )[0],
    ).toContain("unpriced");
    // Anthropic reports cache writes too: both beside the input tokens.
    const written = info({ usage: { input: 123_456, output: 7_890, cached: 100_000, cacheWrite: 4_000 } });
    expect(
      statusLines(
        { info: written, model: "", provider: "", cwd: "/", branch: null, link: "live" },
        200,
        plain,
      )[0],
    ).toContain("↑123k ↓7.9k (100k cached, 4.0k written)");
  });

  it("drops what does not fit instead of wrapping", () => {
    const [first] = statusLines(
      { info: info(), model: "x", provider: "y", cwd: "/", branch: null, link: "live" },
      40,
      plain,
    );
    expect(first).toBe("gpt-test via openai │ ctx 25%");
  });
});

describe("QueueView", () => {
  it("keeps typed messages until the journal shows them delivered", () => {
    const q = new QueueView(plain);
    q.add("first");
    q.add("second");
    expect(q.render(80).filter(Boolean)).toEqual(["⋯ queued: first", "⋯ queued: second"]);
    expect(q.apply(ev({ type: "message", from: "user", to: "self", text: "first" }))).toBe(true);
    expect(q.size).toBe(1);
    expect(q.apply(ev({ type: "message", from: "child-1", to: "self", text: "second" }))).toBe(false);
    expect(q.apply(ev({ type: "user", text: "first\n\nsecond" }))).toBe(true);
    expect(q.size).toBe(0);
  });
});

describe("InputHistory", () => {
  it("persists per directory, user-only, newest first in search", () => {
    const home = tempDir();
    try {
      const a = new InputHistory(home.path, "/project/a");
      a.add("fix the tests");
      a.add("write docs");
      a.add("write docs");
      new InputHistory(home.path, "/project/b").add("elsewhere");
      const again = new InputHistory(home.path, "/project/a");
      expect(again.all()).toEqual(["fix the tests", "write docs"]);
      expect(again.search("TEST")).toEqual(["fix the tests"]);
      expect(again.search("")).toEqual(["write docs", "fix the tests"]);
      const [file] = require("node:fs").readdirSync(join(home.path, "history"));
      expect(statSync(join(home.path, "history", file)).mode & 0o777).toBe(0o600);
    } finally {
      home.cleanup();
    }
  });
});

describe("Transcript", () => {
  const view = { expanded: false, now: () => Date.now() };
  const text = (tr: Transcript) => tr.render(100).join("\n");

  it("streams a cell's output, then shows how it ended; a replayed cell shows the journal's output", () => {
    const tr = new Transcript(plain, view);
    tr.apply(ev({ type: "cell", turn: 1, callId: "c1", code: "for i in range(3): print(i)" }));
    tr.apply({ type: "cell_output_delta", callId: "c1", text: "0\n1\n" } as AgentEvent);
    expect(text(tr)).toMatch(/┊ 0\n {2}┊ 1\n {2}◌ running/);
    tr.apply({ type: "cell_output_delta", callId: "c1", text: "2\n" } as AgentEvent);
    tr.apply(
      ev({
        type: "cell_output",
        turn: 1,
        callId: "c1",
        executionCount: 1,
        status: "ok",
        output: "0\n1\n2\n",
        outputChars: 6,
        truncated: false,
        imageFiles: [],
        durationMs: 1200,
      }),
    );
    expect(text(tr)).toMatch(/┊ 2\n {2}✓ 1\.2 s/);
    expect(tr.hasRunningCells).toBe(false);

    const replay = new Transcript(plain, view);
    replay.apply(ev({ type: "cell", turn: 1, callId: "c2", code: "!false" }));
    replay.apply(
      ev({
        type: "cell_output",
        turn: 1,
        callId: "c2",
        executionCount: 2,
        status: "ok",
        output: "oops\n",
        outputChars: 5,
        truncated: false,
        imageFiles: ["outputs/cell-2-0.png"],
        exitCode: 1,
        durationMs: 30,
      }),
    );
    expect(text(replay)).toContain("┊ oops");
    expect(text(replay)).toContain("✗ exit status 1");
    expect(text(replay)).toContain("image: outputs/cell-2-0.png");
  });

  it("folds long outputs to head and tail, and shows them whole when expanded", () => {
    const folded = new Transcript(plain, view);
    folded.apply(ev({ type: "cell", turn: 1, callId: "c", code: "x" }));
    const out = Array.from({ length: 100 }, (_, i) => `row ${i}`).join("\n");
    folded.apply(
      ev({
        type: "cell_output",
        turn: 1,
        callId: "c",
        executionCount: 1,
        status: "ok",
        output: out,
        outputChars: out.length,
        truncated: false,
        imageFiles: [],
        durationMs: 1,
      }),
    );
    expect(text(folded)).toContain("… 88 more lines · ctrl+o shows all");
    expect(text(folded)).not.toContain("row 50");
    const open = new Transcript(plain, { expanded: true, now: () => 0 });
    open.apply(ev({ type: "cell", turn: 1, callId: "c", code: "x" }));
    open.apply(
      ev({
        type: "cell_output",
        turn: 1,
        callId: "c",
        executionCount: 1,
        status: "ok",
        output: out,
        outputChars: out.length,
        truncated: false,
        imageFiles: [],
        durationMs: 1,
      }),
    );
    expect(text(open)).toContain("row 50");
  });

  it("sums up sub-agents in one line each for starting and finishing, notices in between or not", () => {
    const tr = new Transcript(plain, view);
    for (const [id, label] of [
      ["a", "alpha"],
      ["b", "beta"],
      ["c", "gamma"],
    ] as const) {
      tr.apply(ev({ type: "child_spawned", id, name: id, label, task: "t", model: "m", variables: [] }));
    }
    tr.apply(
      ev({
        type: "child_finished",
        id: "a",
        name: "a",
        status: "done",
        spent: { turns: 1, tokens: 1, elapsedMs: 1, cost: 0 },
      }),
    );
    tr.apply(ev({ type: "interrupted", reason: "interrupted by the user" }));
    tr.apply(
      ev({
        type: "child_finished",
        id: "b",
        name: "b",
        status: "cancelled",
        spent: { turns: 1, tokens: 1, elapsedMs: 1, cost: 0 },
      }),
    );
    tr.apply(
      ev({
        type: "child_finished",
        id: "c",
        name: "c",
        status: "failed",
        reason: "boom",
        spent: { turns: 1, tokens: 1, elapsedMs: 1, cost: 0 },
      }),
    );
    const lines = tr.render(120).filter(Boolean);
    expect(lines).toEqual([
      "⇢ 3 sub-agents: alpha, beta, gamma",
      "⇠ sub-agents: 1 done, 1 cancelled, 1 failed: gamma (boom)",
      "■ interrupted by the user",
    ]);
  });

  it("renders the model's markdown, replacing streamed text with the final one", () => {
    const tr = new Transcript(plain, view);
    tr.apply({ type: "text_delta", turn: 1, delta: "## Res" } as AgentEvent);
    tr.apply({ type: "text_delta", turn: 1, delta: "ult\n\n- **a**\n" } as AgentEvent);
    tr.apply(
      ev({
        type: "model_response",
        turn: 1,
        text: "## Result\n\n- **a**\n- b\n",
        toolCalls: [],
        usage: usage(1, 1),
        cost: null,
        stopReason: "stop",
        requestBytes: 1,
        attempts: 1,
        durationMs: 1,
      }),
    );
    const shown = text(tr);
    expect(shown).toContain("Result");
    expect(shown).not.toContain("##");
    expect(shown).not.toContain("**");
    expect(shown).toMatch(/- a *\n- b/);
  });

  it("says what learning, verdicts and truncation did", () => {
    const tr = new Transcript(plain, view);
    tr.apply(
      ev({
        type: "learn",
        pass: 1,
        trigger: "gate_failure",
        outcome: "applied",
        model: "m",
        scope: "session",
        reviewed: { from: 1, to: 9, omitted: 0 },
        proposed: 1,
        applied: [
          {
            op: "add",
            id: "e1",
            kind: "memory",
            content: "Run pytest with -x first.",
            hypothesis: "h",
            evidence: [],
          },
        ],
        rejected: [],
        revision: "r2",
        tokens: 10,
        cost: null,
        durationMs: 5,
      }),
    );
    tr.apply(
      ev({
        type: "harness_verdict",
        scope: "session",
        rev: "r3",
        verdict: "regressed",
        final: true,
        summary: "s",
        reverted: "r4",
      }),
    );
    tr.apply(ev({ type: "truncated", turn: 2, maxOutputTokens: 512, by: "model", action: "continued" }));
    const shown = tr.render(200).filter(Boolean);
    expect(shown).toEqual([
      "✎ learned 1 lesson (gate failure, revision r2): Run pytest with -x first. — in force from the next request",
      "⚖ harness edit r3 (session) regressed — reverted as r4",
      "↻ the answer was cut off at 512 tokens (model limit); asking the model to continue",
    ]);
  });
});
