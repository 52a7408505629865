// What a model or a kernel writes is shown as text in the terminal UI, never obeyed as terminal commands:
// an OSC 52 in a cell's code, in its output or in the answer would set the user's clipboard (a
// prompt-injected model putting `curl … | sh` there), and a title or cursor sequence would rewrite the
// screen. Each piece carries its own payload, so the raw bytes the UI wrote show which one got through.
import { describe, expect, it } from "vitest";
import { byTask } from "../../support/router.js";
import { useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

const osc52 = (payload: string) => `\u001b]52;c;${payload}\u0007`;

describe("terminal UI: escape sequences from the model and the kernel", () => {
  it("shows code, output, the plan and the answer without passing their escape sequences to the terminal", async () => {
    const rig = await startRig("openai", {
      script: [
        // The code itself holds raw escape characters (a model can write any character).
        {
          code: `# note ${osc52("Q09ERQ==")}\u001b]0;CODE-TITLE\u0007\nprint('out' + '\\x1b]52;c;T1VUUFVU\\x07' + 'put')\nplan(['read' + '\\x1b]52;c;UExBTg==\\x07' + ' files', 'write'])`,
        },
        { text: `all done ${osc52("QU5TV0VS")} here` },
      ],
    });
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("go");
    await ui.press("enter");
    await ui.waitFor("here", { timeoutMs: 60_000 });
    await ui.waitFor("output");
    await ui.waitFor("read files");
    const raw = ui.output();
    const passed = ["Q09ERQ==", "T1VUUFVU", "QU5TV0VS", "UExBTg=="].filter((p) => raw.includes(osc52(p)));
    expect(passed).toEqual([]);
    expect(raw).not.toContain("\u001b]0;CODE-TITLE");
    // Still shown, as text.
    expect(ui.allText()).toContain("# note");
    expect(ui.allText()).toContain("all done");
  });

  it("a sub-agent's transcript, opened after it ended (replayed from its journal), passes none either", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "fan out": [{ code: "r = rlm.map('count the item', ['solo'])\nprint(r)" }, { text: "counted" }],
        "count the item": [{ code: `# child ${osc52("Q0hJTEQ=")}\u001b]0;CHILD-TITLE\u0007\nsubmit('ok')` }],
      }),
    });
    const ui = open(rig, [], { cols: 120, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("fan out please");
    await ui.press("enter");
    await ui.waitFor("counted", { timeoutMs: 60_000 });
    // The child ended: its view is drawn from child.events (its journal), not from the live events.
    await ui.press("ctrl-t");
    await ui.waitFor("enter open");
    await ui.press("enter");
    await ui.waitFor("sub-agent solo (read-only)");
    await ui.waitFor("# child");
    const raw = ui.output();
    expect(raw).not.toContain(osc52("Q0hJTEQ="));
    expect(raw).not.toContain("\u001b]0;CHILD-TITLE");
  });
});
