// The terminal UI asks at start about the project's untrusted files (docs/security.md, "Project files
// that steer relm"): the dialog names the file and what it runs; trusting it records the approval, and
// the session's hooks then run.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTui } from "../../support/tui.js";
import { until } from "../../support/wait.js";

const { startRig, open } = useTui();

describe("trust dialog at start", () => {
  it("lists .relm/hooks.json with its command; trusting it lets its hook run", async () => {
    const rig = await startRig("openai", { script: [{ text: "hello" }] });
    mkdirSync(join(rig.cwd, ".relm"), { recursive: true });
    writeFileSync(
      join(rig.cwd, ".relm", "hooks.json"),
      JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: "command", command: "echo stopped >> stop.log" }] }] },
      }),
    );
    const ui = open(rig, [], { cols: 120, rows: 30 });
    await ui.waitFor("Trust this project's files?");
    await ui.waitFor("Stop: echo stopped >> stop.log");
    await ui.press("enter");
    await ui.waitFor("✓ trusted");
    expect(readFileSync(join(rig.home, "trust.json"), "utf8")).toContain('"hooks"');
    await ui.type("hi");
    await ui.press("enter");
    // The shell creates stop.log before echo writes to it: wait for what it holds, not for the file.
    const log = join(rig.cwd, "stop.log");
    await until(() => (existsSync(log) && readFileSync(log, "utf8") !== "" ? true : undefined), 30_000);
    expect(readFileSync(log, "utf8")).toBe("stopped\n");
    await ui.press("escape");
  });
});
