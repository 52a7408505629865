// Terminal sizes and resizing, and the fallback to line mode where a full-screen UI cannot be drawn.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import type { Pty } from "../../support/pty.js";
import { useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

// Forty rows over about two seconds: output that streams (the whole-turn tests only wait for its end).
const STREAM =
  "import time\nfor i in range(40):\n    print(f'row {i:02d} ' + 'x' * 70, flush=True)\n    time.sleep(0.05)";
/** The same rows, holding after rows 05, 15 and 25 until the test has resized (file `resized-N` in `dir`). */
const steppedStream = (dir: string) =>
  [
    "import os, time",
    "for i in range(40):",
    "    print(f'row {i:02d} ' + 'x' * 70, flush=True)",
    `    while i in (5, 15, 25) and not os.path.exists(os.path.join(${JSON.stringify(dir)}, f'resized-{i:02d}')):`,
    "        time.sleep(0.02)",
  ].join("\n");
const ANSWER =
  "## Summary\n\nForty rows were printed; the **last** one is `row 39`.\n\n| rows | width |\n|---|---|\n| 40 | 77 |\n";

function count(text: string, what: string): number {
  return text.split(what).length - 1;
}

/** What a clean screen looks like at any size: full-width rules around the input, the status line last. */
function expectIntact(ui: Pty, cols: number): void {
  const screen = ui.screen();
  const rules = screen.filter((l) => l === "─".repeat(cols));
  expect(rules.length).toBe(2);
  const text = ui.allText();
  expect(count(text, "Forty rows were printed")).toBe(1);
  expect(count(text, "› print rows")).toBe(1);
  expect(count(text, "relm 0.1.0")).toBe(1);
  const last = screen.filter((l) => l.trim() !== "").at(-1) ?? "";
  expect(last).toMatch(/\/relm-cwd-/);
}

async function runTurn(ui: Pty): Promise<void> {
  await ui.waitFor("new session");
  await ui.type("print rows");
  await ui.press("enter");
}

describe("terminal UI layout", () => {
  for (const [cols, rows] of [
    [80, 24],
    [200, 60],
  ] as const) {
    it(`renders a whole turn cleanly at ${cols}×${rows}`, async () => {
      const rig = await startRig("openai", { script: [{ code: STREAM }, { text: ANSWER }] });
      const ui = open(rig, [], { cols, rows });
      await runTurn(ui);
      await ui.waitFor("Forty rows were printed");
      expectIntact(ui, cols);
      expect(ui.screenText()).toContain("rows");
      expect(ui.screenText()).not.toContain("## Summary");
    });
  }

  it("survives resizes while output streams", async () => {
    let dir = "";
    const rig = await startRig("openai", {
      script: [() => ({ code: steppedStream(dir) }), { text: ANSWER }],
    });
    dir = rig.cwd;
    const ui = open(rig, [], { cols: 100, rows: 30 });
    const resized = (row: string) => writeFileSync(join(dir, `resized-${row}`), "");
    await runTurn(ui);
    await ui.waitFor("row 05");
    ui.resize(80, 24);
    resized("05");
    await ui.waitFor("row 15");
    ui.resize(200, 60);
    resized("15");
    await ui.waitFor("row 25");
    ui.resize(120, 40);
    resized("25");
    await ui.waitFor("Forty rows were printed");
    expectIntact(ui, 120);
    // The cell's footer and its folded output are shown once, at the final width.
    expect(count(ui.allText(), "more lines · ctrl+o shows all")).toBe(1);
  });

  it("falls back to line mode with TERM=dumb", async () => {
    const rig = await startRig("openai", { script: [{ text: "plain answer" }] });
    const ui = open(rig, [], { env: { ...rig.env, TERM: "dumb" } });
    await ui.waitFor("/help for commands");
    expect(ui.output()).not.toContain("\x1b[?2026h");
    await ui.type("hello\r");
    await ui.waitFor("plain answer");
    await ui.press("ctrl-d");
    expect((await ui.waitForExit()).exitCode).toBe(0);
  });

  it("falls back to line mode when stdin is a pipe", async () => {
    const rig = await startRig("openai", { script: [{ text: "piped answer" }] });
    const result = await runRelm([], { env: rig.env, cwd: rig.cwd, input: "hello\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("piped answer");
    expect(result.stdout).not.toContain("\x1b[?2026h");
  });
});
