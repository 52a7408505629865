// The UI shows what a turn changed and how the model reasoned: a real `relm` in a pty against the scripted
// model in the Responses format (which streams reasoning summaries), with a real kernel editing a file.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

describe("terminal UI: file changes and reasoning", () => {
  it("shows a cell's edit as a coloured diff in the cell and the reasoning as a dim line ctrl+o expands", async () => {
    const rig = await startRig(
      "openai",
      {
        script: [
          {
            reasoning: "Fixing the greeting\nThe file says hullo; it should say hello.",
            code: "print(edit('greet.txt', 'hullo', 'hello'))",
          },
          { reasoning: "Reporting back", text: "The greeting is fixed." },
        ],
      },
      { env: { RELM_PROVIDER: "openai-responses", RELM_MODEL: "o4-mini" } },
    );
    writeFileSync(join(rig.cwd, "greet.txt"), "line one\nhullo world\nline three\n");
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("fix the greeting");
    await ui.press("enter");
    await ui.waitFor("The greeting is fixed.", { timeoutMs: 90_000 });
    await ui.waitFor(/✓ \d+ model calls? ·/);
    const screen = ui.screenText();
    // Each reasoning is one dim line: the summary's first line, with the hint when there is more.
    expect(screen).toContain("✻ thought · Fixing the greeting · ctrl+o");
    expect(screen).toContain("✻ thought · Reporting back");
    expect(screen).not.toContain("it should say hello");
    expect(ui.styleOf("✻ thought · Fixing").fg.mode).not.toBe("default");
    // The change sits in the cell that made it, between its output and its end.
    expect(screen).toMatch(
      /✎ edit greet\.txt \+1 −1[\s\S]*┆ @@[\s\S]*┆ -hullo world[\s\S]*┆ \+hello world[\s\S]*✓ \d/,
    );
    // The diff's ---/+++ lines repeat the path: left out of the block (the cell's own output prints them).
    expect(screen).not.toContain("┆ +++ b/greet.txt");
    // In the block (not the cell's own dim output): additions and removals in colours of their own.
    const added = ui.styleOf(/(?<=┆ )\+hello world/).fg;
    const removed = ui.styleOf(/(?<=┆ )-hullo world/).fg;
    const context = ui.styleOf(/(?<=┆ )@@ -1,3/).fg;
    expect(new Set([added, removed, context].map((c) => JSON.stringify(c))).size).toBe(3);

    await ui.press("ctrl-o");
    // Expanded: the label on a line of its own, the whole reasoning under it.
    expect(await ui.waitFor(/✻ thought *\n +Reporting back/)).not.toContain("thought · Reporting back");
    await ui.press("ctrl-d");
    expect((await ui.waitForExit()).exitCode).toBe(0);
  });
});
