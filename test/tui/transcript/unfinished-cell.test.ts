// A cell the transcript never gets a result for (its host died mid-cell, or a turn ended before the
// cell's result was journaled) must not show a clock that runs for ever: the turn's end stops it, and a
// result that still comes replaces the note.
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/core/events.js";
import { makeTheme } from "../../../src/tui/theme.js";
import { Transcript } from "../../../src/tui/transcript/transcript.js";

const start = Date.parse("2026-12-05T10:00:00.000Z");
const at = (ms: number) => new Date(start + ms).toISOString();

function transcript(now: { ms: number }): Transcript {
  return new Transcript(makeTheme({ NO_COLOR: "1" }), { expanded: false, now: () => start + now.ms });
}

function shown(tr: Transcript): string {
  return tr
    .render(100)
    .map((l) => l.trimEnd())
    .join("\n");
}

const cell = (n: number, turn: number, callId: string) =>
  ({ n, t: at(0), type: "cell", turn, callId, code: "print(1)" }) as unknown as AgentEvent;

describe("terminal UI: a cell left without its result", () => {
  it("stops its clock when the turn ends (an error, an interrupt), saying it did not run to its end", () => {
    const now = { ms: 1_000 };
    const tr = transcript(now);
    tr.apply(cell(1, 1, "c1"));
    expect(shown(tr)).toContain("◌ running");
    tr.apply({ n: 2, t: at(2_000), type: "error", message: "the stream broke" } as unknown as AgentEvent);
    now.ms = 60_000; // a minute later the clock has not moved on
    const text = shown(tr);
    expect(text).toContain("✗ not run to its end");
    expect(text).not.toContain("◌ running");
  });

  it("shows a result that comes after the turn's end as it is", () => {
    const tr = transcript({ ms: 1_000 });
    tr.apply(cell(1, 1, "c1"));
    tr.apply({
      n: 2,
      t: at(500),
      type: "interrupted",
      reason: "interrupted by the user",
    } as unknown as AgentEvent);
    tr.apply({
      n: 3,
      t: at(600),
      type: "cell_output",
      turn: 1,
      callId: "c1",
      status: "error",
      output: "KeyboardInterrupt",
      durationMs: 600,
      imageFiles: [],
    } as unknown as AgentEvent);
    const text = shown(tr);
    expect(text).toContain("KeyboardInterrupt");
    expect(text).not.toContain("not run to its end");
  });
});
