// The permission mode in the terminal UI: the status line shows it, shift+tab cycles it before the first
// message (the session starts in it) and during the session (the host restarts the kernel under it,
// variables kept), and where the sandbox does not work the status line says so on a line of its own.
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { untilJournal, useTui } from "../support/tui.js";

const { startRig, open } = useTui();
const linux = process.platform === "linux" && existsSync("/usr/bin/bwrap");
const scratch = mkdtempSync(join(tmpdir(), "relm-tui-modes-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const WRITE =
  "try:\n    open('note.txt', 'w').write('x'); print('wrote')\nexcept OSError as e:\n    print(e.strerror)";

describe.skipIf(!linux)("terminal UI permission modes", () => {
  it("shows the mode; shift+tab cycles it before the first message and switches it in a live session", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: `n = 7\n${WRITE}` },
        { text: "first done" },
        { code: `print('n', n)\n${WRITE}` },
        { text: "second done" },
      ],
    });
    const env = { ...rig.env };
    delete env.RELM_MODE; // the default: workspace, bubblewrap works here
    const ui = open(rig, [], { env, cols: 140 });
    await ui.waitFor("⊡ workspace");
    await ui.press("shift-tab");
    await ui.waitFor("full access");
    await ui.press("shift-tab");
    await ui.waitFor("⊡ plan (read-only)");
    await ui.waitFor(/mode: plan — read-only.*\(the session starts in it\)/);
    await ui.type("try to write");
    await ui.press("enter");
    await ui.waitFor(/first done[\s\S]*✓ 2 model calls/); // the turn has ended
    await ui.waitFor("Read-only file system", { where: "all" });
    expect(existsSync(join(rig.cwd, "note.txt"))).toBe(false);
    // Live: the host switches, the kernel restarts under workspace with n restored.
    await ui.press("shift-tab");
    await ui.waitFor(/⊡ mode: workspace — the project is writable/);
    await ui.waitFor("⊡ workspace");
    const lines = await untilJournal(rig.home, (l) => l.some((e) => e.type === "mode"));
    expect(lines.find((e) => e.type === "mode")).toMatchObject({
      mode: "workspace",
      from: "plan",
      restored: ["n"],
    });
    await ui.type("write again");
    await ui.press("enter");
    await ui.waitFor("second done");
    await ui.waitFor(/n 7\s+.*wrote/s, { where: "all" });
    expect(existsSync(join(rig.cwd, "note.txt"))).toBe(true);
  });

  it("where bubblewrap cannot sandbox, says so in the status line and shift+tab stays in full", async () => {
    const bwrap = join(scratch, "bwrap");
    writeFileSync(
      bwrap,
      '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "bubblewrap 0.8.0"; exit 0; fi\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n',
    );
    chmodSync(bwrap, 0o755);
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const env: NodeJS.ProcessEnv = { ...rig.env, RELM_BWRAP: bwrap };
    delete env.RELM_MODE;
    const ui = open(rig, [], { env, cols: 160 });
    await ui.waitFor("⚠ full (no sandbox)");
    await ui.waitFor(/⚠ no sandbox: bubblewrap 0\.8\.0 cannot make namespaces here/);
    await ui.press("shift-tab");
    await ui.waitFor(/only full access here: .*enable unprivileged user namespaces/);
    expect(ui.screenText()).toContain("⚠ full (no sandbox)");
  });
});
