// Pop-ups (/help, /cost, pickers) blank the rows behind them: nothing of the transcript shows beside the
// frame, nor in the row above and below it.
import { describe, expect, it } from "vitest";
import type { Pty } from "../support/pty.js";
import { useTui } from "../support/tui.js";

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

describe("terminal UI pop-ups", () => {
  it("/help and /cost blank the rows behind them, edge to edge", async () => {
    const filler = Array.from({ length: 60 }, (_, i) => `${"filler ".repeat(20)}${i}`).join("\n\n");
    const rig = await startRig("openai", { script: [{ text: filler }] });
    const ui = open(rig, [], { cols: 100, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("fill the screen");
    await ui.press("enter");
    await ui.waitFor(/filler 59/);
    for (const [command, title] of [
      ["/help", "relm — commands and keys"],
      ["/cost", "Spend"],
    ] as const) {
      await ui.type(command);
      await ui.press("enter");
      await ui.waitFor(title);
      const rows = dialogRows(ui, title);
      // The blank rows around the frame, and nothing of the transcript left or right of its borders.
      expect(rows[0]?.trim()).toBe("");
      expect(rows.at(-1)?.trim()).toBe("");
      for (const row of rows.slice(1, -1)) {
        expect(row.slice(0, row.search(/[│╭╰]/))).toMatch(/^ *$/);
        expect(
          row.slice(Math.max(row.lastIndexOf("│"), row.lastIndexOf("╮"), row.lastIndexOf("╯")) + 1),
        ).toMatch(/^ *$/);
      }
      expect(rows.join("\n")).not.toContain("filler");
      await ui.press("escape");
      await ui.waitFor((s) => !s.includes(title));
    }
  });
});
