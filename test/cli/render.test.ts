// The progress view of `relm run` (stderr): a huge cell is shown as its head, never echoed in full.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/core/events.js";
import { ProgressRenderer } from "../../src/cli/render.js";

function render(events: AgentEvent[]): string {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on("data", (c: Buffer) => chunks.push(c));
  const renderer = new ProgressRenderer(out, { color: false, streamText: false });
  for (const e of events) renderer.handle(e);
  return Buffer.concat(chunks).toString("utf8");
}

const t = "2026-01-01T00:00:00.000Z";
const cell = (code: string, agent?: string): AgentEvent =>
  ({ n: 1, t, type: "cell", turn: 1, callId: "c1", code, ...(agent ? { agent } : {}) }) as AgentEvent;

describe("ProgressRenderer with a 10 MB cell", () => {
  it("shows a one-line 10 MB literal as its first 200 characters and says how much is left out", () => {
    const code = `data = "${"x".repeat(10 * 1024 * 1024)}"`;
    const text = render([cell(code)]);
    expect(text.length).toBeLessThan(1_000);
    expect(text).toContain(`▸ ipython\n  │ data = "${"x".repeat(192)}… (+${code.length - 200} chars)`);
  });

  it("shows the first lines of 10 MB of short lines and counts the rest", () => {
    const head = Array.from({ length: 10 }, (_, i) => `v${i} = ${i}`).join("\n");
    const code = `${head}\n${"w = 0\n".repeat(1_750_000)}\n`;
    const text = render([cell(code)]);
    expect(text.length).toBeLessThan(1_000);
    expect(text).toContain("  │ v7 = 7\n  │ … +1750002 lines\n");
    expect(text).not.toContain("v8 = 8");
  });

  it("shows a child's huge cell as one short line", () => {
    const text = render([cell(`${"y".repeat(5_000_000)}\nmore`, "child01")]);
    expect(text.length).toBeLessThan(300);
    expect(text).toContain("…");
  });
});

describe("ProgressRenderer and reasoning", () => {
  const response = (turn: number, reasoning?: unknown): AgentEvent =>
    ({
      n: 2,
      t,
      type: "model_response",
      turn,
      text: "",
      toolCalls: [],
      ...(reasoning ? { reasoning } : {}),
      usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, cacheWriteTokens: 0, estimated: false },
      cost: 0,
      stopReason: "stop",
      requestBytes: 1,
      attempts: 1,
      durationMs: 1,
    }) as AgentEvent;
  const thinking = {
    format: "anthropic",
    items: [{ type: "thinking", thinking: "Plan it\nthen act", signature: "s" }],
  };

  it("gives streamed reasoning one dim line, not its text", () => {
    const text = render([
      { type: "reasoning_delta", turn: 1, delta: "Plan it" },
      { type: "reasoning_delta", turn: 1, delta: "\nthen act" },
      response(1, thinking),
    ]);
    expect(text).toBe("✻ thinking…\n");
  });

  it("gives a replayed answer's reasoning its first line", () => {
    expect(render([response(1, thinking), response(2)])).toBe("✻ thought · Plan it\n");
  });
});
