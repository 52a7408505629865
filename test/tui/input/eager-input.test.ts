// A keystroke's frame is drawn at once, even right after a streamed frame (pi-tui would wait for its
// 16 ms render slot). Real pi-tui on an in-memory terminal; time is vitest's fake clock, so "at once"
// means "no timer had to run out", not a measured duration.
import { type Component, TUI } from "@mariozechner/pi-tui";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { drawNow, paceFrames } from "../../../src/tui/input/eager-input.js";
import { makeTheme } from "../../../src/tui/theme.js";
import { AssistantBlock } from "../../../src/tui/transcript/blocks.js";
import { MemoryTerminal } from "../../support/memory-terminal.js";

/** A line of text that changes on every key and on every streamed chunk. */
class Line implements Component {
  text = "";
  render(): string[] {
    return [this.text];
  }
  handleInput(data: string): void {
    this.text += data;
    tuiOf.requestRender();
  }
  invalidate(): void {}
}

let tuiOf: TUI;

async function setup(eager: boolean) {
  const terminal = new MemoryTerminal();
  const tui = new TUI(terminal);
  tuiOf = tui;
  if (eager) expect(paceFrames(tui)).toBe(true);
  const line = new Line();
  tui.addChild(line);
  tui.setFocus(line);
  tui.start();
  await vi.advanceTimersByTimeAsync(50);
  return { terminal, tui, line };
}

/** A streamed chunk has just been drawn, and another is waiting for the next 16 ms slot; then a key. */
async function keyRightAfterAFrame(eager: boolean): Promise<{ before: number; after: number }> {
  const { terminal, tui, line } = await setup(eager);
  line.text = "chunk 1";
  tui.requestRender();
  await vi.advanceTimersByTimeAsync(0);
  line.text = "chunk 2";
  tui.requestRender();
  await vi.advanceTimersByTimeAsync(0);
  const before = terminal.frames;
  terminal.input("k");
  await vi.advanceTimersByTimeAsync(1);
  const after = terminal.frames;
  tui.stop();
  return { before, after };
}

describe("keystrokes skip pi-tui's render interval", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("draws the key's frame within a millisecond of a streamed frame", async () => {
    const { before, after } = await keyRightAfterAFrame(true);
    expect(after).toBe(before + 1);
  });

  it("without it, pi-tui makes the key wait for the slot (what the patch changes)", async () => {
    const { before, after } = await keyRightAfterAFrame(false);
    expect(after).toBe(before);
  });
});

describe("frames paced to what they cost", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a slow frame spaces out the next ones, and the end of the block is drawn at once, whole", async () => {
    const terminal = new MemoryTerminal();
    const tui = new TUI(terminal);
    // The render's own cost, on a clock of its own: 25 ms a frame (a long block that never settles).
    let spent = 0;
    expect(paceFrames(tui, () => spent)).toBe(true);
    const block = new AssistantBlock(makeTheme({ TERM: "xterm-256color" }));
    tui.addChild({
      render: (width) => {
        spent += 25;
        return block.render(width);
      },
      invalidate: () => block.invalidate(),
    });
    tui.start();
    await vi.advanceTimersByTimeAsync(200);
    const before = terminal.frames;
    // A word every 2 ms for 400 ms: one frame per 16 ms would be 25 of them; paced at 4 × 25 ms, about 4.
    for (let i = 1; i <= 200; i++) {
      block.append(`w${i} `);
      tui.requestRender();
      await vi.advanceTimersByTimeAsync(2);
    }
    const streamed = terminal.frames - before;
    expect(streamed).toBeGreaterThanOrEqual(3);
    expect(streamed).toBeLessThanOrEqual(6);
    // The block ends: its last frame is not held back for the paced slot, and has all of the text.
    const written = terminal.written.length;
    block.append("THE-END");
    drawNow(tui);
    await vi.advanceTimersByTimeAsync(0);
    expect(terminal.frames).toBe(before + streamed + 1);
    expect(terminal.written.slice(written)).toContain("THE-END");
    tui.stop();
  });
});
