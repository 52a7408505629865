// A keystroke's frame is drawn at once, even right after a streamed frame (pi-tui would wait for its
// 16 ms render slot). Real pi-tui on an in-memory terminal; time is vitest's fake clock, so "at once"
// means "no timer had to run out", not a measured duration.
import { type Component, TUI } from "@mariozechner/pi-tui";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { renderInputEagerly } from "../../../src/tui/input/eager-input.js";
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
  if (eager) expect(renderInputEagerly(tui)).toBe(true);
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
