// Ctrl-C on a draft clears the input, and the cleared input is drawn at once. The UI's own key handler
// consumes the key, so pi-tui draws no frame for it: without one asked for, the draft stayed on screen
// until something else redrew it (in an idle session, up to the next 15 s refresh of its figures).
// Real pi-tui, the UI's real editor and key handler, on an in-memory terminal; time is vitest's fake clock.
import { TUI } from "@mariozechner/pi-tui";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AppControl } from "../../../src/tui/app-api.js";
import { paceFrames } from "../../../src/tui/input/eager-input.js";
import { InputEditor } from "../../../src/tui/input/input-editor.js";
import { installKeys } from "../../../src/tui/keys.js";
import { makeTheme } from "../../../src/tui/theme.js";
import { MemoryTerminal } from "../../support/memory-terminal.js";

describe("Ctrl-C on the input", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("clears a draft and draws the empty input without waiting for another frame", async () => {
    const terminal = new MemoryTerminal();
    const tui = new TUI(terminal);
    paceFrames(tui);
    const theme = makeTheme({ NO_COLOR: "1" });
    const editor = new InputEditor(tui, theme.editor, { paddingX: 1 });
    tui.addChild(editor);
    tui.setFocus(editor);
    const notes: string[] = [];
    // The parts of the app the key handler reads on this path: an idle session without a dialog.
    const app = {
      tui,
      editor,
      theme,
      busy: false,
      panel: { focused: false },
      link: { id: undefined },
      note: (text: string) => notes.push(text),
    } as unknown as AppControl;
    installKeys(app);
    tui.start();
    for (const c of "a draft") terminal.input(c);
    await vi.advanceTimersByTimeAsync(50);
    expect(terminal.written).toContain("a draft");
    const frames = terminal.frames;
    const from = terminal.written.length;
    terminal.input("\x03");
    await vi.advanceTimersByTimeAsync(50);
    expect(editor.getText()).toBe("");
    expect(terminal.frames).toBeGreaterThan(frames);
    expect(terminal.written.slice(from)).not.toContain("draft");
    expect(notes).toEqual([]);
    tui.stop();
  });
});
