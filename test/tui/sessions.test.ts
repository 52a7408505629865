// Leaving and coming back: /detach keeps the session running; attach shows its history and what it
// does next; --continue reopens this directory's last session.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../support/cli.js";
import { byTask } from "../support/router.js";
import { sessionIds, untilJournal, useTui } from "../support/tui.js";
import { until } from "../support/wait.js";

const { startRig, open } = useTui();

describe("terminal UI sessions", () => {
  it("/detach before any session says there is nothing to leave running, and stays", async () => {
    const rig = await startRig("openai", { script: [{ text: "the first answer" }] });
    const ui = open(rig, [], { cols: 100, rows: 30 });
    await ui.waitFor("new session");
    await ui.type("/detach");
    await ui.press("enter");
    await ui.waitFor("no session to leave running yet");
    expect(ui.exit).toBeUndefined();
    // The UI is still in use: the next message starts the session.
    await ui.type("hello");
    await ui.press("enter");
    await ui.waitFor("the first answer");
  });

  it("/detach leaves it running; relm attach in a second terminal shows the history and the next live output", async () => {
    const rig = await startRig("openai", {
      // One conversation: every turn of it plays the next step of the same script.
      script: byTask({
        "first task": [
          { code: "print('first cell ran')" },
          { text: "first answer" },
          {
            // Output over ~1.5 s for the attached view to show (it is only checked to appear, not when).
            code: "import time\nfor i in range(5):\n    print(f'second {i}', flush=True)\n    time.sleep(0.3)",
          },
          { text: "second answer" },
        ],
      }),
    });
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("first task");
    await ui.press("enter");
    await ui.waitFor(/✓ \d+ model calls? ·/);
    const [id] = sessionIds(rig.home);
    await ui.type("/detach");
    await ui.press("enter");
    const exit = await ui.waitForExit();
    expect(exit.exitCode).toBe(0);
    expect(ui.allText()).toContain(`session ${id} keeps running in the background`);
    // Still served by its host.
    const agents = await runRelm(["agents", "--json"], { env: rig.env, cwd: rig.cwd });
    expect(JSON.parse(agents.stdout.trim().split("\n")[0] as string)).toMatchObject({ id, live: true });

    const second = open(rig, ["attach", id as string]);
    await second.waitFor("first answer", { where: "all" });
    expect(second.allText()).toContain("first cell ran");
    expect(second.allText()).toContain("› first task");
    // Slash commands work in the attached view too.
    await second.type("/cost");
    await second.press("enter");
    await second.waitFor("model calls");
    await second.press("escape");
    await runRelm(["send", id as string, "now the second task"], { env: rig.env, cwd: rig.cwd });
    await second.waitFor("second 1");
    await second.waitFor("second answer");
  });

  it("relm --continue reopens the last session of this directory and resumes it on the next message", async () => {
    const rig = await startRig("openai", {
      script: [{ text: "remembered: the number is 7" }, { text: "you said 7" }],
    });
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("remember the number 7");
    await ui.press("enter");
    await ui.waitFor(/✓ \d+ model calls? ·/);
    await ui.press("ctrl-d");
    expect((await ui.waitForExit()).exitCode).toBe(0);
    const [id] = sessionIds(rig.home);
    expect(ui.allText()).toContain("relm --continue");
    await until(async () => {
      const r = await runRelm(["agents", "--json"], { env: rig.env, cwd: rig.cwd });
      return r.stdout.includes('"live":false') ? true : undefined;
    });

    const back = open(rig, ["--continue"]);
    await back.waitFor("remembered: the number is 7", { where: "all" });
    await back.waitFor("your next message resumes it");
    await back.type("what number?");
    await back.press("enter");
    await back.waitFor("you said 7");
    expect(sessionIds(rig.home)).toEqual([id]);
    const lines = await untilJournal(rig.home, (l) => l.filter((e) => e.type === "final").length === 2);
    expect(lines.some((e) => e.type === "resumed")).toBe(true);
    // The resumed request carries the whole conversation.
    expect(rig.model.requests.at(-1)?.rawBody).toContain("remember the number 7");
  });

  it("relm run --resume ID in a terminal reopens an interrupted session in the UI and continues its work", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "long task": [
          { code: "import time\nprint('started', flush=True)\ntime.sleep(120)" },
          { text: "continued after the crash" },
        ],
      }),
    });
    const launched = await runRelm(["run", "--detach", "long task"], { env: rig.env, cwd: rig.cwd });
    const id = launched.stdout.trim();
    const lines = await untilJournal(rig.home, (l) => l.some((e) => e.type === "cell"));
    expect(lines.length).toBeGreaterThan(0);
    const agents = await runRelm(["agents", "--json"], { env: rig.env, cwd: rig.cwd });
    const pid = (JSON.parse(agents.stdout.trim().split("\n")[0] as string) as { pid: number }).pid;
    process.kill(pid, "SIGKILL");
    await until(async () => {
      const r = await runRelm(["agents", "--json"], { env: rig.env, cwd: rig.cwd });
      return r.stdout.includes('"live":false') ? true : undefined;
    });
    const ui = open(rig, ["run", "--resume", id]);
    await ui.waitFor("› long task", { where: "all" });
    await ui.waitFor("resumed in a new process");
    await ui.waitFor("continued after the crash");
  });

  it("relm --resume ID with flags brings the session back with them, in place of the ones it remembers", async () => {
    const rig = await startRig("openai", {
      script: [
        { text: "first answer" },
        { code: "import time\ntime.sleep(60)" },
        { text: "stopped waiting" },
      ],
    });
    const first = await runRelm(["run", "--cell-timeout", "120", "first task"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(first.code).toBe(0);
    const [id] = sessionIds(rig.home);
    const ui = open(rig, ["--resume", id as string, "--cell-timeout", "1"]);
    await ui.waitFor("first answer", { where: "all" });
    await ui.type("now wait");
    await ui.press("enter");
    await ui.waitFor("stopped waiting");
    const lines = await untilJournal(rig.home, (l) => l.filter((e) => e.type === "final").length === 2);
    const outputs = lines.filter((e) => e.type === "cell_output");
    expect(outputs.at(-1)).toMatchObject({ status: "timeout" });
    const remembered = JSON.parse(
      readFileSync(join(rig.home, "sessions", id as string, "flags.json"), "utf8"),
    );
    expect(remembered).toMatchObject({ cellTimeout: "1" });
  });

  it("relm --thinking --kernel (--sandbox) reach the host it starts in its spec, not its environment", async () => {
    const rig = await startRig("anthropic", { script: [{ text: "thought it over" }] });
    // The sandbox only where bubblewrap can run it (as test/e2e/kernels/sandbox.test.ts).
    const sandbox = process.platform === "linux" && existsSync("/usr/bin/bwrap") ? ["--sandbox"] : [];
    const ui = open(rig, ["--thinking", "high", "--kernel", "local", ...sandbox]);
    await ui.waitFor("new session");
    await ui.type("think first");
    await ui.press("enter");
    await ui.waitFor("thought it over");
    expect((rig.model.requests[0]?.body as { thinking?: unknown } | undefined)?.thinking).toMatchObject({
      type: "enabled",
    });
    const [id] = sessionIds(rig.home);
    const remembered = JSON.parse(
      readFileSync(join(rig.home, "sessions", id as string, "flags.json"), "utf8"),
    );
    expect(remembered).toMatchObject({
      thinking: "high",
      kernel: "local",
      ...(sandbox.length ? { sandbox: true } : {}),
    });
    const agents = await runRelm(["agents", "--json"], { env: rig.env, cwd: rig.cwd });
    const { pid } = JSON.parse(agents.stdout.trim().split("\n")[0] as string) as { pid: number };
    if (process.platform === "linux") {
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      const names = environ.map((entry) => entry.slice(0, entry.indexOf("=")));
      expect(names).toContain("RELM_HOME"); // the rig's environment did reach it
      for (const name of ["RELM_THINKING", "RELM_KERNEL_URI", "RELM_SANDBOX", "RELM_ALLOW_NET"])
        expect(names).not.toContain(name);
    }
  });
});
