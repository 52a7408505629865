// A large paste sent to a session whose kernel is already running in the sandbox (workspace mode, the
// default where bubblewrap works): the kernel reads the staged text from the session's inputs/ folder,
// which lies under the RELM_HOME the sandbox hides.
import { describe, expect, it } from "vitest";
import { BWRAP } from "../../support/sandbox.js";
import { untilJournal, useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

describe.skipIf(!BWRAP)("terminal UI: a large paste into a sandboxed kernel", () => {
  it("a paste sent after the kernel started becomes a variable the kernel can read", async () => {
    const rig = await startRig(
      "openai",
      {
        script: [
          { code: "print('kernel up')" },
          { text: "started" },
          { code: "print('got', len(paste_1), paste_1.splitlines()[-1])" },
          { text: "read the paste" },
        ],
      },
      { env: { RELM_MODE: "workspace", RELM_PASTE_THRESHOLD: "100" } },
    );
    const ui = open(rig, [], { cols: 100, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("start the kernel");
    await ui.press("enter");
    await ui.waitFor("started");
    const text = Array.from({ length: 40 }, (_, i) => `pasted row ${i}`).join("\n");
    await ui.paste(text);
    await ui.waitFor(/\[kernel variable paste_1: [\d,]+ chars, 40 lines\]/);
    await ui.press("enter");
    await ui.waitFor("read the paste");
    const lines = await untilJournal(rig.home, (l) => l.filter((e) => e.type === "final").length === 2);
    expect(lines.filter((e) => e.type === "error").map((e) => e.message)).toEqual([]);
    const outputs = lines.filter((e) => e.type === "cell_output").map((e) => String(e.output));
    expect(outputs.at(-1)).toContain(`got ${text.length} pasted row 39`);
  });
});
