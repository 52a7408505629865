// The event lines the terminal UI's transcript and line mode word alike (src/commands/event-lines.ts):
// each front end shows them with the same text, in its own colours.
import { PassThrough } from "node:stream";
import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/core/events.js";
import { ProgressRenderer } from "../../src/cli/render.js";
import { makeTheme } from "../../src/tui/theme.js";
import { Transcript } from "../../src/tui/transcript/transcript.js";

const t = "2026-01-01T00:00:00.000Z";
const events = [
  {
    n: 1,
    t,
    type: "gate_run",
    passed: false,
    results: [
      { command: "npm test", exitCode: 0, passed: true, timedOut: false, output: "", durationMs: 1200 },
      { command: "npm run lint", exitCode: 2, passed: false, timedOut: true, output: "", durationMs: 300 },
    ],
    skipped: [],
    sameFailures: 0,
  },
  { n: 2, t, type: "model_retry", turn: 1, attempt: 2, delayMs: 1500, reason: "HTTP 529" },
  { n: 3, t, type: "goal_paused", reason: "the budget is spent" },
  { n: 4, t, type: "kernel", event: "started", detail: "local" },
  { n: 5, t, type: "mcp", server: "files", event: "failed", detail: "files: exited\nstack" },
] as unknown as AgentEvent[];

const expected = [
  "✓ gate npm test 1.2 s",
  "✗ gate (exit 2, timed out) npm run lint 300 ms",
  "↻ model call failed (HTTP 529); retry 2 in 1.5 s",
  "◎ goal paused: the budget is spent",
  "⚠ files: exited",
];

function lineMode(color: boolean): string[] {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on("data", (c: Buffer) => chunks.push(c));
  const renderer = new ProgressRenderer(out, { color, streamText: false });
  for (const e of events) renderer.handle(e);
  return Buffer.concat(chunks).toString("utf8").trimEnd().split("\n");
}

function terminalUi(env: NodeJS.ProcessEnv): string[] {
  const tr = new Transcript(makeTheme(env), { expanded: false, now: () => 0 });
  for (const e of events) tr.apply(e);
  return tr
    .render(100)
    .map((l) => stripVTControlCharacters(l).trim())
    .filter((l) => l !== "");
}

describe("event lines shared by line mode and the terminal UI", () => {
  it("line mode prints them, and nothing for a kernel that started", () => {
    expect(lineMode(false)).toEqual(expected);
  });

  it("the terminal UI shows the same lines", () => {
    expect(terminalUi({ NO_COLOR: "1" })).toEqual(expected);
  });

  it("each paints them in its own colours: the failed gate's mark red, its time dim", () => {
    const coloured = lineMode(true);
    expect(coloured[1]).toBe(
      "\u001b[31m✗ gate (exit 2, timed out)\u001b[39m npm run lint \u001b[2m300 ms\u001b[22m",
    );
    expect(coloured.map(stripVTControlCharacters)).toEqual(expected);
    expect(terminalUi({ TERM: "xterm-256color" })).toEqual(expected);
  });
});
