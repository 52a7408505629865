// The transcript's file-change and reasoning blocks, in-process: a `file_edit` inside the cell that made
// it (diff coloured, folded, ctrl+o unfolds), and the model's reasoning as a collapsed dim line while it
// streams, a one-line summary after, and the same from the journal on replay.
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/core/events.js";
import { makeTheme } from "../../../src/tui/theme.js";
import { Transcript } from "../../../src/tui/transcript/transcript.js";

const plain = makeTheme({ NO_COLOR: "1" });
const colour = makeTheme({ COLORTERM: "truecolor", TERM: "xterm-256color" });
let n = 0;
function ev(body: Record<string, unknown>): AgentEvent {
  n += 1;
  return { ...body, n, t: new Date(Date.UTC(2026, 11, 2, 12, 0, n)).toISOString() } as unknown as AgentEvent;
}
const usage = {
  inputTokens: 1,
  outputTokens: 1,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  estimated: false,
};
function response(text: string, reasoning?: unknown): AgentEvent {
  return ev({
    type: "model_response",
    turn: 1,
    text,
    toolCalls: [],
    ...(reasoning ? { reasoning } : {}),
    usage,
    cost: 0,
    stopReason: "stop",
    requestBytes: 10,
    attempts: 1,
    durationMs: 5,
  });
}
const cellEnd = (callId: string) =>
  ev({
    type: "cell_output",
    turn: 1,
    callId,
    executionCount: 1,
    status: "ok",
    output: "done\n",
    outputChars: 5,
    truncated: false,
    imageFiles: [],
    durationMs: 40,
  });

/** The non-empty lines as they read (markdown pads its lines to the width). */
const shown = (tr: Transcript, width = 80) =>
  tr
    .render(width)
    .map((l) => l.trimEnd())
    .filter(Boolean);

function diffOf(lines: number): string {
  const body = Array.from({ length: lines }, (_, i) => `+line ${i}`).join("\n");
  return `--- a/notes.txt\n+++ b/notes.txt\n@@ -1,1 +1,${lines} @@\n-old\n${body}\n`;
}

describe("file_edit in the transcript", () => {
  it("shows the change inside its cell, before the cell's end, folded until ctrl+o", () => {
    const view = { expanded: false, now: () => 0 };
    const tr = new Transcript(plain, view);
    tr.apply(ev({ type: "cell", turn: 1, callId: "c1", code: "edit('notes.txt', 'old', 'new')" }));
    tr.apply(
      ev({ type: "file_edit", path: "notes.txt", action: "edit", added: 20, removed: 1, diff: diffOf(20) }),
    );
    tr.apply(cellEnd("c1"));
    const lines = tr.render(100);
    const text = lines.join("\n");
    const head = lines.findIndex((l) => l.includes("✎ edit notes.txt +20 −1"));
    const end = lines.findIndex((l) => l.includes("✓ 40 ms"));
    expect(head).toBeGreaterThan(lines.findIndex((l) => l.includes("┊ done")));
    expect(end).toBeGreaterThan(head);
    // The ---/+++ header is the path again: left out. 8 lines shown, the rest counted.
    expect(text).not.toContain("+++ b/notes.txt");
    expect(text).toContain("┆ @@ -1,1 +1,20 @@");
    expect(text).toContain("┆ -old");
    expect(text).toContain("┆ +line 5");
    expect(text).not.toContain("+line 6");
    expect(text).toContain("… 14 more lines · ctrl+o shows all");

    view.expanded = true;
    for (const c of tr.children) c.invalidate();
    const open = tr.render(100).join("\n");
    expect(open).toContain("+line 19");
    expect(open).not.toContain("more lines · ctrl+o");
  });

  it("colours additions green, removals red and hunk headers dim", () => {
    const tr = new Transcript(colour, { expanded: false, now: () => 0 });
    tr.apply(ev({ type: "cell", turn: 1, callId: "c", code: "x" }));
    tr.apply(
      ev({
        type: "file_edit",
        path: "a.py",
        action: "edit",
        added: 1,
        removed: 1,
        diff: "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n",
      }),
    );
    const text = tr.render(80).join("\n");
    expect(text).toContain(colour.ok("+b"));
    expect(text).toContain(colour.error("-a"));
    expect(text).toContain(colour.dim("@@ -1 +1 @@"));
  });

  it("goes into the cell just ended when it arrives after the cell's end", () => {
    const tr = new Transcript(plain, { expanded: false, now: () => 0 });
    tr.apply(ev({ type: "cell", turn: 1, callId: "c", code: "x" }));
    tr.apply(cellEnd("c"));
    tr.apply(ev({ type: "file_edit", path: "a.txt", action: "create", added: 1, removed: 0, diff: "+a\n" }));
    const lines = shown(tr);
    expect(lines.slice(-3)).toEqual(["  ✎ create a.txt +1 −0", "    ┆ +a", "  ✓ 40 ms"]);
  });

  it("stands on its own when no cell is running, and says where a file moved", () => {
    const tr = new Transcript(plain, { expanded: false, now: () => 0 });
    tr.note("before");
    tr.apply(
      ev({ type: "file_edit", path: "b.txt", from: "a.txt", action: "move", added: 0, removed: 0, diff: "" }),
    );
    expect(shown(tr)).toEqual(["before", "  ✎ moved a.txt → b.txt +0 −0"]);
  });
});

describe("reasoning in the transcript", () => {
  it("streams as one dim line, then keeps the first line as a summary that ctrl+o expands", () => {
    const view = { expanded: false, now: () => 0 };
    const tr = new Transcript(plain, view);
    tr.apply({ type: "reasoning_delta", turn: 1, delta: "**Planning the fix**\n\nFirst read" } as AgentEvent);
    expect(shown(tr)).toEqual(["  ✻ thinking… · First read"]);
    tr.apply({ type: "reasoning_delta", turn: 1, delta: " the file.\nThen edit it." } as AgentEvent);
    tr.apply({ type: "text_delta", turn: 1, delta: "Done." } as AgentEvent);
    const streaming = shown(tr);
    expect(streaming[0]).toBe("  ✻ thinking… · Then edit it.");
    expect(streaming.at(-1)).toContain("Done.");

    tr.apply(response("Done."));
    const after = shown(tr);
    expect(after[0]).toBe("  ✻ thought · Planning the fix · ctrl+o");
    expect(after).toHaveLength(2);

    view.expanded = true;
    const open = shown(tr);
    expect(open.slice(0, 4)).toEqual([
      "  ✻ thought",
      "    **Planning the fix**",
      "    First read the file.",
      "    Then edit it.",
    ]);
  });

  it("is rebuilt from the journal's model_response.reasoning on replay, above the answer", () => {
    const tr = new Transcript(plain, { expanded: false, now: () => 0 });
    tr.apply(
      response("The answer is 4.", {
        format: "openai-responses",
        items: [
          { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Adding two and two" }] },
        ],
      }),
    );
    const anthropic = new Transcript(plain, { expanded: false, now: () => 0 });
    anthropic.apply(
      response("Yes.", {
        format: "anthropic",
        items: [{ type: "thinking", thinking: "Check it\nthen answer", signature: "s" }],
      }),
    );
    expect(shown(tr)).toEqual(["  ✻ thought · Adding two and two", "The answer is 4."]);
    expect(shown(anthropic)).toEqual(["  ✻ thought · Check it · ctrl+o", "Yes."]);
    // Encrypted reasoning with nothing readable shows nothing.
    const hidden = new Transcript(plain, { expanded: false, now: () => 0 });
    hidden.apply(
      response("Hi.", {
        format: "openai-responses",
        items: [{ type: "reasoning", encrypted_content: "x", summary: [] }],
      }),
    );
    expect(shown(hidden)).toEqual(["Hi."]);
  });
});
