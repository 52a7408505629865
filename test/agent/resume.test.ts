import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rebuildConversation } from "../../src/agent/core/resume.js";
import type { JournalEvent } from "../../src/session/types.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

let n = 0;
const at = (body: Record<string, unknown>) =>
  ({ n: ++n, t: "2026-12-02T00:00:00Z", ...body }) as JournalEvent;
const usage = {
  inputTokens: 1,
  outputTokens: 1,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  estimated: false,
};
const response = (turn: number, text: string, calls: string[]) =>
  at({
    type: "model_response",
    turn,
    text,
    toolCalls: calls.map((id) => ({ id, name: "ipython", arguments: '{"code":"1"}' })),
    usage,
    cost: null,
    stopReason: "x",
    requestBytes: 1,
    attempts: 1,
    durationMs: 1,
  });
const output = (callId: string, text: string) =>
  at({
    type: "cell_output",
    turn: 1,
    callId,
    executionCount: 1,
    status: "ok",
    output: text,
    outputChars: text.length,
    truncated: false,
    imageFiles: [],
    durationMs: 1,
  });

describe("rebuilding a conversation from its journal", () => {
  it("replays messages, applies compactions, and reports what was in flight", () => {
    const events = [
      at({ type: "goal", text: "ship it" }),
      at({ type: "user", text: "task" }),
      at({ type: "model_request", turn: 1, messages: 1 }),
      response(1, "", ["a"]),
      at({ type: "cell", turn: 1, callId: "a", code: "1" }),
      output("a", "one\n"),
      at({ type: "model_request", turn: 2, messages: 3 }),
      response(2, "more", ["b"]),
      at({ type: "cell", turn: 2, callId: "b", code: "1" }),
      output("b", "two\n"),
      at({
        type: "compaction",
        summaryMessage: "SUMMARY",
        kept: 2,
        summarized: 3,
        tokensBefore: 9,
        tokensAfter: 3,
      }),
      at({ type: "model_request", turn: 3, messages: 3 }),
      response(3, "", ["c", "d"]),
      at({ type: "cell", turn: 3, callId: "c", code: "1" }),
    ];
    const rebuilt = rebuildConversation("/nonexistent", events);
    expect(rebuilt.goal).toBe("ship it");
    expect(rebuilt.lastTurn).toBe(3);
    expect(rebuilt.settled).toBe(false);
    expect(rebuilt.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(rebuilt.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: "SUMMARY" }] });
    expect(rebuilt.messages[2]).toEqual({
      role: "tool",
      toolCallId: "b",
      content: [{ type: "text", text: "two\n" }],
    });
    expect(rebuilt.unanswered.map((u) => [u.call.id, u.started])).toEqual([
      ["c", true],
      ["d", false],
    ]);
  });

  it("knows a model call that never got its answer", () => {
    const rebuilt = rebuildConversation("/x", [
      at({ type: "user", text: "t" }),
      at({ type: "model_request", turn: 1, messages: 1 }),
    ]);
    expect(rebuilt.modelCallInFlight).toBe(1);
  });

  it("replays a person's !command as the note the model read, never as a tool answer", () => {
    const events = [
      at({ type: "user", text: "task" }),
      at({ type: "model_request", turn: 1, messages: 1 }),
      response(1, "answer", []),
      at({ type: "final", text: "answer" }),
      at({ type: "cell", turn: 1, callId: "shell-abc", code: "!ls" }),
      output("shell-abc", "a.txt\n"),
    ];
    const rebuilt = rebuildConversation("/nowhere", events);
    expect(rebuilt.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "[the user ran a shell command in the kernel]\n!ls\na.txt\n" }],
    });
    expect(rebuilt.messages.some((m) => m.role === "tool")).toBe(false);
    expect(rebuilt.unanswered).toEqual([]);
  });

  it("sends a cell's images again from outputs/, but not what a link a kernel put there leads to", () => {
    const dir = mkdtempSync(join(tmpdir(), "relm-resume-images-"));
    made.push(dir);
    mkdirSync(join(dir, "outputs"));
    writeFileSync(join(dir, "outputs", "cell-1-0.png"), "PNGDATA");
    // outputs/ is writable to the session's kernels: this one linked its second image to a secret.
    const outsideDir = mkdtempSync(join(tmpdir(), "relm-resume-secret-"));
    made.push(outsideDir);
    writeFileSync(join(outsideDir, "auth.json"), '{"access": "tok-SECRET"}');
    symlinkSync(join(outsideDir, "auth.json"), join(dir, "outputs", "cell-1-1.png"));
    const events = [
      at({ type: "user", text: "draw" }),
      response(1, "", ["a"]),
      at({ type: "cell", turn: 1, callId: "a", code: "1" }),
      at({ ...output("a", "drawn\n"), imageFiles: ["outputs/cell-1-0.png", "outputs/cell-1-1.png"] }),
    ];
    const sent = JSON.stringify(rebuildConversation(dir, events).messages);
    expect(sent).toContain(Buffer.from("PNGDATA").toString("base64"));
    expect(sent).not.toContain(Buffer.from('{"access": "tok-SECRET"}').toString("base64"));
  });
});
