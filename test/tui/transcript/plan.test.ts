// plan() in the kernel: the agent's task list as a checklist in the UI, its progress in `relm agents`.
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { untilJournal, useTui } from "../../support/tui.js";
import { poll } from "../../support/wait.js";

const { startRig, open } = useTui();

describe("the agent's plan in the terminal UI", () => {
  it("shows plan() as a checklist with its progress, in relm agents too, and clears it after the next message", async () => {
    const rig = await startRig("openai", {
      script: [
        {
          code: 'plan(["read the code", "fix the bug", "run the tests"])\nplan(done=1, doing=2)\nprint(plan)',
        },
        { text: "first step done" },
        { code: "plan(done=[2, 3])" },
        { text: "all done" },
        { text: "next piece of work" },
      ],
    });
    const ui = open(rig, [], { cols: 100, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("fix it");
    await ui.press("enter");
    await ui.waitFor("first step done");
    const screen = await ui.waitFor(
      /Plan 1\/3\s*\n\s*✓ read the code\s*\n\s*▸ fix the bug\s*\n\s*○ run the tests/,
    );
    expect(screen).toContain("[~] 2. fix the bug"); // print(plan) in the cell's output
    const listed = await poll(async () => {
      const r = await runRelm(["agents"], { env: rig.env, cwd: rig.cwd });
      return /[a-z]+ 1\/3 /.test(r.stdout) ? r.stdout : undefined;
    }, 20_000);
    expect(listed).toBeDefined();
    await ui.type("carry on");
    await ui.press("enter");
    await ui.waitFor("all done");
    await ui.waitFor(/Plan 3\/3\s*\n\s*✓ read the code\s*\n\s*✓ fix the bug\s*\n\s*✓ run the tests/);
    await ui.type("something else");
    await ui.press("enter");
    await ui.waitFor("next piece of work");
    await ui.waitFor((s) => !s.includes("Plan 3/3"));
    const lines = await untilJournal(rig.home, (l) => l.filter((e) => e.type === "plan").length === 3);
    expect(lines.filter((e) => e.type === "plan").at(-1)?.steps).toEqual([
      { text: "read the code", status: "done" },
      { text: "fix the bug", status: "done" },
      { text: "run the tests", status: "done" },
    ]);
  });
});
