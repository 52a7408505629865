// Pop-ups (/help, /cost, /model, /resume, a sub-agent's transcript) blank the rows behind them: nothing of the transcript shows beside the
// frame, nor in the row above and below it.
import { describe, expect, it } from "vitest";
import type { Pty } from "../../support/pty.js";
import { byTask } from "../../support/router.js";
import { useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

/** The rows of the dialog titled `title`: from the blank row above its top border to the one below. */
function dialogRows(ui: Pty, title: string): string[] {
  const screen = ui.screen();
  const top = screen.findIndex((row) => row.includes("╭") && row.includes(title));
  const bottom = screen.findIndex((row, i) => i > top && row.includes("╰"));
  expect(top).toBeGreaterThan(0);
  expect(bottom).toBeGreaterThan(top);
  return screen.slice(top - 1, bottom + 2);
}

/** Checks that the dialog titled `title` blanks the rows behind it, edge to edge, then closes it. */
async function expectBlanked(ui: Pty, title: string): Promise<void> {
  await ui.waitFor(title);
  const rows = dialogRows(ui, title);
  // The blank rows around the frame, and nothing of the transcript left or right of its borders.
  expect(rows[0]?.trim(), ui.dump()).toBe("");
  expect(rows.at(-1)?.trim(), ui.dump()).toBe("");
  for (const row of rows.slice(1, -1)) {
    expect(row.slice(0, row.search(/[│╭╰]/))).toMatch(/^ *$/);
    expect(row.slice(Math.max(row.lastIndexOf("│"), row.lastIndexOf("╮"), row.lastIndexOf("╯")) + 1)).toMatch(
      /^ *$/,
    );
  }
  expect(rows.join("\n")).not.toContain("filler");
  await ui.press("escape");
  await ui.waitFor((s) => !s.includes(title));
}

describe("terminal UI pop-ups", () => {
  it("/help, /cost, /model, /resume and a sub-agent's transcript blank the rows behind them, edge to edge", async () => {
    const filler = Array.from({ length: 60 }, (_, i) => `${"filler ".repeat(20)}${i}`).join("\n\n");
    const rig = await startRig("openai", {
      models: ["scripted", "other-model"],
      script: byTask({
        "fill the screen": [{ code: "r = rlm.map('count the item', ['solo'])\nprint(r)" }, { text: filler }],
        "count the item": [{ code: "print('counted solo')\nsubmit('ok')" }],
      }),
    });
    const ui = open(rig, [], { cols: 100, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("fill the screen");
    await ui.press("enter");
    await ui.waitFor(/filler 59/);
    for (const [command, title] of [
      ["/help", "relm — commands and keys"],
      ["/cost", "Spend"],
      ["/model", "Model for the next turn"],
      ["/resume", "Resume a session of this directory"],
    ] as const) {
      await ui.type(command);
      await ui.press("enter");
      await expectBlanked(ui, title);
    }
    // The sub-agent's read-only transcript: ctrl+t selects it in the panel, enter opens it.
    await ui.press("ctrl-t");
    await ui.waitFor("enter open");
    await ui.press("enter");
    await ui.waitFor("counted solo");
    await expectBlanked(ui, "sub-agent solo (read-only)");
  });

  it("over a transcript shorter than the screen, a pop-up ends just above the status line, over the input", async () => {
    const reply = Array.from({ length: 12 }, (_, i) => `line ${i} of a short answer`).join("\n\n");
    const rig = await startRig("openai", { models: ["scripted", "other-model"], script: [{ text: reply }] });
    const ui = open(rig, [], { cols: 100, rows: 50 });
    await ui.waitFor("new session");
    await ui.type("answer briefly");
    await ui.press("enter");
    await ui.waitFor(/line 11 of a short answer[\s\S]*✓ 1 model call/);
    const statusBefore = ui.screen().findIndex((row) => row.includes("scripted via openai"));
    // The UI ends well above the screen's last row: the rows below it are empty.
    expect(statusBefore).toBeLessThan(45);
    await ui.type("/model");
    await ui.press("enter");
    await ui.waitFor("Model for the next turn");
    const screen = ui.screen();
    const bottom = screen.findIndex((row, i) => i > 0 && row.includes("╰"));
    const status = screen.findIndex((row) => row.includes("scripted via openai"));
    // The status line stays where it was, in sight, with the frame's blank row between them; the input's
    // rows (just above the status line) are under the pop-up.
    expect(status, ui.dump()).toBe(statusBefore);
    expect(bottom, ui.dump()).toBe(status - 2);
    expect(screen[status - 1]?.trim()).toBe("");
    await ui.press("escape");
    await ui.waitFor((s) => !s.includes("Model for the next turn"));
  });
});

describe("terminal UI text views", () => {
  it("pgdn and pgup in /help move by the rows it shows, so no line is skipped", async () => {
    const rig = await startRig("openai", { script: [] });
    const ui = open(rig, [], { cols: 100, rows: 30 });
    await ui.waitFor("new session");
    await ui.type("/help");
    await ui.press("enter");
    const position = /lines (\d+)–(\d+) of (\d+)/;
    const first = position.exec(await ui.waitFor(position));
    const [, , end, total] = (first ?? []).map(Number);
    expect(end).toBeLessThan(total ?? 0);
    await ui.press("pagedown");
    // The next page starts at or before the line after the last one shown: every line is seen.
    const next = position.exec(await ui.waitFor((s) => !s.includes(`lines 1–${end} `)));
    const start = Number(next?.[1]);
    expect(start, ui.dump()).toBeGreaterThan(1);
    expect(start, ui.dump()).toBeLessThanOrEqual((end ?? 0) + 1);
    await ui.press("pageup");
    await ui.waitFor(`lines 1–${end} of ${total}`);
    await ui.press("escape");
  });
});
