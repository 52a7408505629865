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

describe("terminal UI interrupting an answer", () => {
  it("the next turn's answer appears under its own message, not in the block of the answer Esc cut off", async () => {
    const rig = await startRig("openai", {
      script: [{ endless: true, text: "on and on " }, { text: "the second answer" }],
      // A model's pace, not a flood: a UI that falls behind a flood cannot reach the host in time.
      chunkDelayMs: 10,
    });
    const ui = open(rig, [], { cols: 100, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("talk forever");
    await ui.press("enter");
    await ui.waitFor("on and on on and on");
    await ui.press("escape");
    await ui.waitFor("■ interrupted by the user");
    await ui.type("then answer briefly");
    await ui.press("enter");
    await ui.waitFor(/the second answer[\s\S]*✓ 1 model call/, { where: "all" });
    const rows = ui.scrollback();
    const asked = rows.findIndex((r) => r.includes("› then answer briefly"));
    const answered = rows.findIndex((r) => r.includes("the second answer"));
    // The answer follows its own message; the cut-off text stays where it was.
    expect(asked, ui.dump()).toBeGreaterThan(0);
    expect(answered, rows.join("\n")).toBeGreaterThan(asked);
    expect(rows.slice(0, asked).join("\n")).toContain("on and on");
  });
});

describe("terminal UI interrupting a flood", () => {
  it("Esc stops an answer streamed as fast as the model can write it (no delay between pieces)", async () => {
    const rig = await startRig("openai", {
      script: [{ endless: true, text: "flood of text " }, { text: "the answer after the flood" }],
    });
    const ui = open(rig, [], { cols: 100, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("talk forever, fast");
    await ui.press("enter");
    await ui.waitFor("flood of text flood of text");
    await ui.press("escape");
    await untilJournal(rig.home, (l) => l.some((e) => e.type === "interrupted"), 60_000);
    await ui.waitFor("■ interrupted by the user", { timeoutMs: 60_000 });
    await ui.type("then answer briefly");
    await ui.press("enter");
    await ui.waitFor("the answer after the flood", { where: "all", timeoutMs: 60_000 });
  }, 180_000);
});

describe("terminal UI: a cell whose turn ends without its output", () => {
  it("stops its clock when the turn fails before the cell ran (a kernel that cannot start)", async () => {
    const rig = await startRig("openai", { script: [{ code: "print('never runs')" }, { text: "unused" }] });
    const ui = open(rig, ["--kernel", "cmd:false"], { cols: 100, rows: 30 });
    await ui.waitFor("new session");
    await ui.type("run something");
    await ui.press("enter");
    await ui.waitFor("the kernel exited while starting");
    await untilJournal(rig.home, (l) => l.some((e) => e.type === "error"));
    // The cell is over: it says why instead of a clock that runs on (the host journals it as not run).
    const screen = await ui.waitFor("Not run: the kernel could not start");
    expect(screen, ui.dump()).not.toContain("◌ running");
  });
});
