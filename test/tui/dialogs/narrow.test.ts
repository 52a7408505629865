// A pop-up in a narrow terminal keeps its frame: the title and the rows are cut to the box, never past
// its right border (at 13-20 columns the title line and every row ran over it).
import { describe, expect, it } from "vitest";
import { useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

describe("terminal UI pop-ups in a narrow terminal", () => {
  for (const cols of [14, 18]) {
    it(`/help at ${cols} columns is a whole box: every row of it ends with its right border`, async () => {
      const rig = await startRig("openai", { script: [{ text: "unused" }] });
      const ui = open(rig, [], { cols, rows: 30 });
      await ui.waitFor(/─────/); // the input line (the status line is cut at this width)
      await ui.type("/help");
      await ui.press("enter");
      const screen = await ui.waitFor(/╭[\s\S]*╰/);
      const rows = screen.split("\n");
      const top = rows.findIndex((r) => r.includes("╭"));
      const bottom = rows.findIndex((r) => r.includes("╰"));
      const box = rows.slice(top, bottom + 1).map((r) => r.trimEnd());
      expect(box[0], screen).toMatch(/╮$/);
      expect(box.at(-1), screen).toMatch(/╯$/);
      for (const row of box.slice(1, -1)) expect(row, screen).toMatch(/│$/);
    });
  }
});
