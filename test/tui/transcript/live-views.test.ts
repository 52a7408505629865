// Live output reaches every view, from the start of the running cell: a UI attached mid-cell shows what
// the cell printed before it came, and `relm logs ID -f` and a piped `relm attach` print a running
// cell's output as it comes, not only once the cell has ended.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RELM_BIN } from "../../support/cli.js";
import { sessionIds, useTui } from "../../support/tui.js";
import { until } from "../../support/wait.js";

const { startRig, open } = useTui();

/** Prints `early` lines, holds until `go` exists, prints `late`, holds until `done` exists. */
const twoPhaseCell = (dir: string) =>
  [
    "import os, time",
    "def hold(name):",
    `    while not os.path.exists(os.path.join(${JSON.stringify(dir)}, name)):`,
    "        time.sleep(0.02)",
    "for i in range(3):",
    "    print(f'early {i}', flush=True)",
    "hold('go')",
    "print('late one', flush=True)",
    "hold('done')",
  ].join("\n");

/** A relm command with stdout piped, its output so far readable at any time. */
function piped(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(process.execPath, [RELM_BIN, ...args], { env, cwd, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", () => {});
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { text: () => out, child, exited };
}

describe("live output in every view", () => {
  it("a UI attached mid-cell, relm logs -f and a piped relm attach show the running cell's output", async () => {
    let dir = "";
    const rig = await startRig("openai", {
      script: [() => ({ code: twoPhaseCell(dir) }), { text: "all phases done" }],
    });
    dir = rig.cwd;
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("run the phases");
    await ui.press("enter");
    await ui.waitFor("early 2");
    const [id] = sessionIds(rig.home);

    // Joined while the cell runs: what it printed before is there.
    const second = open(rig, ["attach", id as string]);
    const joined = await second.waitFor("early 2");
    expect(joined).toContain("early 0");
    expect(joined).toMatch(/◌ running/);
    const logs = piped(["logs", id as string, "-f"], rig.env, rig.cwd);
    const attach = piped(["attach", id as string], rig.env, rig.cwd);
    for (const view of [logs, attach])
      await until(() => (view.text().includes("early 2") ? true : undefined));
    expect(logs.text()).not.toContain("all phases done");

    // Printed after they joined: live in each, while the cell still runs.
    writeFileSync(join(dir, "go"), "");
    await second.waitFor("late one");
    await ui.waitFor("late one");
    for (const view of [logs, attach])
      await until(() => (view.text().includes("late one") ? true : undefined));
    expect(logs.text()).not.toContain("all phases done");
    writeFileSync(join(dir, "done"), "");
    await until(() => (logs.text().includes("all phases done") ? true : undefined), 60_000);
    // Each line once: the end of the cell does not print what streamed again.
    expect(logs.text().match(/^ {2}│ late one$/gm)).toHaveLength(1);
    await logs.exited;
    attach.child.kill("SIGINT");
    await attach.exited;
  });

  it("a UI attached mid-cell counts the activity clock and the cell clock both from the cell's start", async () => {
    let dir = "";
    const rig = await startRig("openai", {
      script: [() => ({ code: twoPhaseCell(dir) }), { text: "clocks done" }],
    });
    dir = rig.cwd;
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("run the phases");
    await ui.press("enter");
    // The cell has run for 3 s in the first view before the second joins.
    await ui.waitFor(/◌ running ([3-9]|\d\d)\.\d s/, { timeoutMs: 30_000 });
    const [id] = sessionIds(rig.home);
    const second = open(rig, ["attach", id as string]);
    const clocks = (screen: string) => ({
      cell: /◌ running (\d+\.\d s)/.exec(screen)?.[1],
      activity: /running a cell (\d+\.\d s)/.exec(screen)?.[1],
    });
    // Both clocks in one frame: the same reading, and at least the 3 s the cell had run before the attach
    // (the activity clock used to start at the attach, from 0).
    const screen = await second.waitFor((s) => {
      const c = clocks(s);
      return c.cell !== undefined && c.activity !== undefined;
    });
    const { cell, activity } = clocks(screen);
    expect(activity, screen).toBe(cell);
    expect(Number.parseFloat(activity as string)).toBeGreaterThanOrEqual(3);
    writeFileSync(join(dir, "go"), "");
    writeFileSync(join(dir, "done"), "");
    await second.waitFor("clocks done", { timeoutMs: 60_000 });
  });
});
