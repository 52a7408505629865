// The agent panel: sub-agents of rlm.map labelled by their item, their live status, and Esc cancelling
// the whole running subtree.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pythonsOf } from "../support/cli.js";
import { byTask } from "../support/router.js";
import { sessionIds, untilJournal, useTui } from "../support/tui.js";
import { pythonWaitForFile, until } from "../support/wait.js";

const { startRig, open } = useTui();

const FAN_OUT = "r = rlm.map('shout the item', ['alpha', 'beta', 'gamma'])\nprint(r)";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of every child kernel the session's sub-agents started (from their own journals). */
function childKernelPids(home: string, id: string): number[] {
  const dir = join(home, "sessions", id, "children");
  if (!existsSync(dir)) return [];
  const pids: number[] = [];
  for (const child of readdirSync(dir)) {
    const file = join(dir, child, "journal.jsonl");
    if (!existsSync(file)) continue;
    const lines = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    for (const e of lines) {
      if (e.type === "kernel" && e.event === "started") pids.push(e.pid as number);
    }
  }
  return pids;
}

describe("terminal UI agent panel", () => {
  it("shows rlm.map's children labelled by item, live, then done", async () => {
    let release = "";
    const rig = await startRig("openai", {
      script: byTask({
        "fan out": [{ code: FAN_OUT }, { text: "all three shouted" }],
        // The children run until the test has seen them running (a 1.5 s cell could end unseen).
        "shout the item": [() => ({ code: `${pythonWaitForFile(release)}\nsubmit(item.upper())` })],
      }),
    });
    release = join(rig.cwd, "shout-now");
    const ui = open(rig, [], { cols: 120, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("fan out please");
    await ui.press("enter");
    const panel = await ui.waitFor(/agents 3 working/);
    for (const item of ["alpha", "beta", "gamma"])
      expect(panel).toMatch(new RegExp(`${item} (starting|thinking|running)`));
    expect(panel).not.toContain("map-0");
    await ui.waitFor(/alpha running/);
    writeFileSync(release, "");
    await ui.waitFor("all three shouted");
    expect(ui.allText()).toContain("⇠ sub-agents: 3 done");
    expect(ui.allText()).toContain("['ALPHA', 'BETA', 'GAMMA']");
  });

  it("Esc while children run cancels all of them and leaves none of their kernels", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "fan out": [{ code: FAN_OUT }, { text: "stopped" }],
        "shout the item": [{ code: "import time\ntime.sleep(120)\nsubmit(item)" }],
      }),
    });
    const ui = open(rig, [], { cols: 120, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("fan out please");
    await ui.press("enter");
    await ui.waitFor(
      /(alpha|beta|gamma) running[\s\S]*(alpha|beta|gamma) running[\s\S]*(alpha|beta|gamma) running/,
    );
    const [id] = sessionIds(rig.home);
    const pids = await until(() => {
      const p = childKernelPids(rig.home, id as string);
      return p.length === 3 ? p : undefined;
    });
    expect(pids.every(alive)).toBe(true);
    await ui.press("escape");
    await ui.waitFor("3 cancelled", { where: "all" });
    await until(() => (pids.some(alive) ? undefined : true));
    await untilJournal(rig.home, (lines) => lines.some((e) => e.type === "interrupted"));
    // The session itself goes on: its own kernel stays for the next message.
    await ui.waitFor(/kernel (idle|busy)/);
    await ui.press("ctrl-d");
    expect((await ui.waitForExit()).exitCode).toBe(0);
    await until(() => (pythonsOf(rig.home).length === 0 ? true : undefined));
  });

  it("shows a running child's latest output line, not its cell's first code line", async () => {
    let release = "";
    const rig = await startRig("openai", {
      script: byTask({
        "fan out": [{ code: "r = rlm.map('count the item', ['solo'])\nprint(r)" }, { text: "counted" }],
        "count the item": [
          () => ({
            code: `import sys\nfor i in range(3):\n    print(f'counting {i}', flush=True)\n${pythonWaitForFile(release)}\nsubmit('ok')`,
          }),
        ],
      }),
    });
    release = join(rig.cwd, "count-done");
    const ui = open(rig, [], { cols: 120, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("fan out please");
    await ui.press("enter");
    const panel = await ui.waitFor(/solo running · › counting 2/);
    expect(panel).not.toMatch(/solo running · import sys/);
    // Cost worded as the status line words it (the scripted model has no prices).
    expect(panel).toMatch(/solo running · › counting 2 .* tok · unpriced/);
    writeFileSync(release, "");
    await ui.waitFor("counted");
  });
});
