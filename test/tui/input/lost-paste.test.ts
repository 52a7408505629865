// A pasted variable whose staged file is gone (removed by hand, a cleaned-up folder) when the kernel
// restarts and loads it again: the session goes on without it instead of failing every cell after.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sessionIds, untilJournal, useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

describe("terminal UI: a pasted variable that cannot be loaded again", () => {
  it("after a kernel crash, the cells run on and the model is told the variable is gone", async () => {
    const rig = await startRig(
      "openai",
      {
        script: [
          { code: "print('size', len(paste_1))" },
          { text: "read it" },
          { code: "import os\nos._exit(1)" },
          { text: "crashed it" },
          { code: "print('still alive')" },
          { text: "carried on" },
        ],
      },
      { env: { RELM_PASTE_THRESHOLD: "100" } },
    );
    const ui = open(rig, [], { cols: 100, rows: 40 });
    await ui.waitFor("new session");
    await ui.paste(Array.from({ length: 30 }, (_, i) => `pasted row ${i}`).join("\n"));
    await ui.waitFor("[kernel variable paste_1");
    await ui.press("enter");
    await ui.waitFor("read it");
    const [id] = sessionIds(rig.home);
    rmSync(join(rig.home, "sessions", String(id), "inputs", "paste_1.txt"));
    await ui.type("crash the kernel");
    await ui.press("enter");
    await untilJournal(
      rig.home,
      (l) => l.filter((e) => e.type === "final" || e.type === "error").length === 2,
    );
    await ui.type("go on");
    await ui.press("enter");
    const lines = await untilJournal(
      rig.home,
      (l) => l.filter((e) => e.type === "final" || e.type === "error").length === 3,
    );
    expect(lines.filter((e) => e.type === "error").map((e) => e.message)).toEqual([]);
    expect(lines.some((e) => e.type === "cell_output" && String(e.output).includes("still alive"))).toBe(
      true,
    );
    expect(lines.some((e) => e.type === "warning" && String(e.message).includes("paste_1"))).toBe(true);
    // The model reads, with a cell's result, that the variable could not be loaded again.
    expect(rig.bodies().at(-1)).toMatch(/paste_1[^"]*could not be loaded/);
  });
});
