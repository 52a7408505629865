// Esc on a running cell: the KeyboardInterrupt it ends with shows the person's code, not relm's own
// interrupt handler.
import { describe, expect, it } from "vitest";
import { untilJournal, useTui } from "../support/tui.js";

const { startRig, open } = useTui();

describe("terminal UI interrupting a cell", () => {
  it("Esc on a running cell shows a KeyboardInterrupt traceback without relm's frames", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "import time\nprint('waiting', flush=True)\ntime.sleep(120)" }, { text: "never" }],
    });
    const ui = open(rig, [], { cols: 120, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("wait a while");
    await ui.press("enter");
    await ui.waitFor(/┊ waiting/);
    await ui.press("escape");
    const lines = await untilJournal(rig.home, (l) => l.some((e) => e.type === "cell_output"));
    const output = String(lines.find((e) => e.type === "cell_output")?.output);
    expect(output).toContain("KeyboardInterrupt");
    expect(output).not.toMatch(/relm[/\\\\]|_handler|interrupts\.py/);
    await ui.press("ctrl-o");
    const shown = await ui.waitFor("KeyboardInterrupt");
    expect(shown).not.toMatch(/interrupts\.py|_handler/);
  });
});
