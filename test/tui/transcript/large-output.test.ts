// A cell that prints thousands of lines: the running view shows the newest ones, the folded view counts
// the hidden lines right (in a second terminal attached afterwards too) and says where all of it is,
// the expanded view says it holds only part, and ctrl+p opens all of it in the pager.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sessionIds, useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

/** Prints 5,000 numbered lines, then holds until the file `go` exists in `dir`. */
const bigCell = (dir: string) =>
  [
    "import os, time",
    "for i in range(5000):",
    "    print(f'row {i:04d} ' + 'x' * 40)",
    `while not os.path.exists(os.path.join(${JSON.stringify(dir)}, 'go')):`,
    "    time.sleep(0.02)",
  ].join("\n");

describe("terminal UI large outputs", () => {
  it("shows the newest lines while running, counts and points to the rest after, and pages it with ctrl+p", async () => {
    let dir = "";
    const rig = await startRig("openai", {
      script: [() => ({ code: bigCell(dir) }), { text: "printed them" }],
    });
    dir = rig.cwd;
    // A pager that keeps a copy of what it was given: the test reads it instead of a screen.
    const pager = join(dir, "pager.sh");
    writeFileSync(pager, `#!/bin/sh\ncp "$1" "${join(dir, "paged.txt")}"\n`);
    chmodSync(pager, 0o755);
    const ui = open(rig, [], { env: { ...rig.env, PAGER: pager }, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("print a lot");
    await ui.press("enter");
    // While it runs: the newest lines, not the first screens of the stream.
    const running = await ui.waitFor("row 4999", { timeoutMs: 60_000 });
    expect(running).toMatch(/◌ running/);
    expect(running).toContain("row 4990");
    expect(running).not.toContain("row 0000");
    expect(running).toMatch(/… [\d,]+ earlier lines/);
    writeFileSync(join(dir, "go"), "");
    await ui.waitFor("printed them", { timeoutMs: 60_000 });
    // Ended: head and tail, the true count between them, and where all of it is.
    const folded = ui.screenText();
    expect(folded).toContain("row 0000");
    expect(folded).toContain("row 4999");
    expect(folded).toContain("… 4,988 more lines · ctrl+o shows what the UI kept");
    expect(folded).toMatch(/all 5,000 lines: outputs\/cell-\d+\.txt \(_out\[\d+\] in the kernel\) · ctrl\+p/);
    // Expanded: the UI says it holds part of the output, and where the rest is.
    await ui.press("ctrl-o");
    await ui.waitFor(/⚠ the UI keeps [\d,]+ of 5,000 lines; all of it: outputs\/cell-\d+\.txt/);
    await ui.press("ctrl-o");
    await ui.waitFor("… 4,988 more lines");
    // ctrl+p: the whole output in the pager.
    await ui.press("ctrl-p");
    const paged = join(dir, "paged.txt");
    await ui.waitFor(() => existsSync(paged) && readFileSync(paged, "utf8").includes("row 4999"));
    const lines = readFileSync(paged, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(5000);
    expect(lines[2500]).toBe(`row 2500 ${"x".repeat(40)}`);
    await ui.waitFor("printed them");

    // A second terminal attached afterwards counts the hidden lines from the journal, not its capped copy.
    const [id] = sessionIds(rig.home);
    const second = open(rig, ["attach", id as string], { rows: 40 });
    await second.waitFor("printed them", { where: "all" });
    expect(second.allText()).toContain("… 4,988 more lines");
    expect(second.allText()).toContain("row 4999");
  });

  it("wraps a long output line when expanded, where the folded view cuts it", async () => {
    const long = `start ${"abcdefghij".repeat(25)} END-OF-LONG-LINE`;
    const rig = await startRig("openai", {
      script: [{ code: `print(${JSON.stringify(long)})` }, { text: "printed it" }],
    });
    const ui = open(rig, [], { cols: 80, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("print a long line");
    await ui.press("enter");
    await ui.waitFor("printed it");
    // Folded: one row, cut.
    const folded = ui.screenText();
    expect(folded).toMatch(/start abcdefghij.*(\.\.\.|…)\n/);
    expect(folded).not.toContain("END-OF-LONG-LINE");
    // Expanded (ctrl+o): the whole line, over several rows.
    await ui.press("ctrl-o");
    const expanded = await ui.waitFor("END-OF-LONG-LINE");
    const joined = expanded.replace(/\n[│┆┊ ]*/g, "").replace(/\s+/g, "");
    expect(joined).toContain(long.replace(/\s+/g, ""));
  });
});
