// The status line's figures come from the journal; commands set before the first message take effect.
import { describe, expect, it } from "vitest";
import { DEFAULT_CONTEXT_WINDOW } from "../../src/agent/compaction/windows.js";
import { formatTokens } from "../../src/commands/format.js";
import { runRelm } from "../support/cli.js";
import { sessionIds, untilJournal, useTui } from "../support/tui.js";

const { startRig, open } = useTui();

describe("terminal UI status line", () => {
  it("shows tokens and context use that match the journal", async () => {
    const rig = await startRig("openai", { script: [{ code: "print(6 * 7)" }, { text: "42" }] });
    const ui = open(rig, [], { cols: 140 });
    await ui.waitFor("new session");
    await ui.type("multiply");
    await ui.press("enter");
    await ui.waitFor(/✓ 2 model calls ·/);
    const lines = await untilJournal(rig.home, (l) => l.some((e) => e.type === "final"));
    const responses = lines.filter((e) => e.type === "model_response") as unknown as {
      usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
    }[];
    const input = responses.reduce((s, r) => s + r.usage.inputTokens, 0);
    const output = responses.reduce((s, r) => s + r.usage.outputTokens, 0);
    const last = responses.at(-1)?.usage;
    const pct = Math.round(
      (100 * ((last?.inputTokens ?? 0) + (last?.outputTokens ?? 0))) / DEFAULT_CONTEXT_WINDOW,
    );
    const status = await ui.waitFor(`↑${formatTokens(input)} ↓${formatTokens(output)}`);
    expect(status).toContain(`ctx ${pct}%`);
    expect(status).toMatch(/kernel idle/);
    expect(status).toContain("unpriced");
    const id = (lines.find((e) => e.type === "header") as { id?: string } | undefined)?.id;
    expect(status).toContain(id as string);
  });

  it("names the variables a kernel release would lose, and not a large one saved in the background", async () => {
    // Caps lowered through config.json (as in test/e2e/kernels/unsaved-vars.test.ts): big is written by the
    // background writer, too_big is over every cap.
    const config = { snapshotMaxVariableMB: 0.05, snapshotMaxLargeMB: 8 };
    const rig = await startRig(
      "openai",
      {
        script: [
          { code: "big = list(range(100_000))\ntoo_big = bytes(16 << 20)" },
          { text: "made" },
          { code: "del too_big" },
          { text: "dropped" },
        ],
      },
      { config },
    );
    const ui = open(rig, [], { cols: 160 });
    await ui.waitFor("new session");
    await ui.type("make data");
    await ui.press("enter");
    // One, named: big (being saved in the background) is not counted.
    await ui.waitFor("1 var won't survive (too_big)");
    // Deleted, it is no longer at risk: the next snapshot clears the warning.
    await ui.type("drop it");
    await ui.press("enter");
    await untilJournal(rig.home, (l) => l.filter((e) => e.type === "final").length === 2);
    await ui.waitFor((text) => text.includes("dropped") && !text.includes("won't survive"));
  });

  it('/autonomous on "python -m pytest -q" before the first message records one gate', async () => {
    const rig = await startRig("openai", {
      script: [{ text: "I think it is done" }],
      onExhausted: "repeat-last",
    });
    const ui = open(rig, [], { cols: 140 });
    await ui.waitFor("new session");
    await ui.type('/autonomous on "python -m pytest -q"');
    await ui.press("enter");
    await ui.waitFor("autonomous: on — done when `python -m pytest -q` exit 0");
    await ui.waitFor("autonomous (1 gate)");
    await ui.type("make the tests pass");
    await ui.press("enter");
    const lines = await untilJournal(rig.home, (l) => l.some((e) => e.type === "gate_run"));
    const gate = lines.find((e) => e.type === "gate_run") as unknown as { results: { command: string }[] };
    expect(gate.results.map((r) => r.command)).toEqual(["python -m pytest -q"]);
    await ui.press("escape");
  });

  it("once the session's host is gone mid-cell, the kernel reads stopped, not busy", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "import time\nprint('waiting', flush=True)\ntime.sleep(120)" }, { text: "never" }],
    });
    const ui = open(rig, [], { cols: 120, rows: 30 });
    await ui.waitFor("new session");
    await ui.type("wait a long time");
    await ui.press("enter");
    await ui.waitFor("kernel busy");
    await ui.waitFor("┊ waiting");
    const agents = await runRelm(["agents", "--json"], { env: rig.env, cwd: rig.cwd });
    const pid = (JSON.parse(agents.stdout.trim().split("\n")[0] as string) as { pid: number }).pid;
    process.kill(pid, "SIGKILL");
    const screen = await ui.waitFor("not running: your next message resumes it");
    expect(screen, ui.dump()).toContain("kernel stopped");
    expect(screen).not.toContain("kernel busy");
  });

  it("out of budget, a message is refused with the step from the UI: /quit, then relm --resume", async () => {
    const rig = await startRig("openai", {
      script: async (ctx) => ({ text: `answered: ${ctx.lastUserText ?? ""}` }),
    });
    const ui = open(rig, ["--max-turns", "1"], { cols: 200 });
    await ui.waitFor("new session");
    await ui.type("first");
    await ui.press("enter");
    await ui.waitFor("answered: first");
    await ui.type("second");
    await ui.press("enter");
    const [id] = sessionIds(rig.home);
    const screen = await ui.waitFor("out of budget, message not delivered");
    expect(screen.replace(/\s+/g, " ")).toContain(
      `to go on, resume it with a higher limit: /quit, then relm --resume ${id} --max-turns HIGHER`,
    );
    expect(screen).not.toContain("relm stop");
    // The step works from here.
    await ui.type("/quit");
    await ui.press("enter");
    await ui.waitForExit();
    const again = open(rig, ["--resume", id as string, "--max-turns", "2"], { cols: 200 });
    await again.waitFor("answered: first");
    await again.type("third");
    await again.press("enter");
    await again.waitFor(/answered: \[relm\][\s\S]*third/);
  });

  it("a turn stopped mid-way by a budget says the step on, as line mode does", async () => {
    const rig = await startRig("openai", { script: [{ code: "print(6 * 7)" }, { text: "never asked" }] });
    const ui = open(rig, ["--max-turns", "1"], { cols: 200 });
    await ui.waitFor("new session");
    await ui.type("multiply");
    await ui.press("enter");
    const [id] = await untilJournal(rig.home, (l) => l.some((e) => e.type === "budget_stop")).then(() =>
      sessionIds(rig.home),
    );
    const screen = await ui.waitFor(`to go on: /quit, then relm --resume ${id} --max-turns HIGHER`);
    expect(screen).toContain("■ budget exhausted: --max-turns (1 of 1 model calls used)");
  });

  it("a turn stopped mid-way by a budget, another client attached: the step on is the shell's", async () => {
    const rig = await startRig("openai", {
      script: [{ text: "hello" }, { code: "print(6 * 7)" }, { text: "never asked" }],
    });
    const ui = open(rig, ["--max-turns", "2"], { cols: 200 });
    await ui.waitFor("new session");
    await ui.type("hi");
    await ui.press("enter");
    await ui.waitFor("hello");
    const [id] = sessionIds(rig.home);
    const other = open(rig, ["attach", id as string], { cols: 200 });
    await other.waitFor("hello", { where: "all" });
    await ui.type("multiply");
    await ui.press("enter");
    const screen = await ui.waitFor(
      `to go on: relm stop ${id}, then relm run --resume ${id} --max-turns HIGHER`,
    );
    expect(screen).not.toContain("/quit, then");
  });

  it("out of budget with another client attached, the refusal gives the shell's step (/quit would only detach)", async () => {
    const rig = await startRig("openai", {
      script: async (ctx) => ({ text: `answered: ${ctx.lastUserText ?? ""}` }),
    });
    const ui = open(rig, ["--max-turns", "1"], { cols: 200 });
    await ui.waitFor("new session");
    await ui.type("first");
    await ui.press("enter");
    await ui.waitFor("answered: first");
    const [id] = sessionIds(rig.home);
    const other = open(rig, ["attach", id as string], { cols: 200 });
    await other.waitFor("answered: first", { where: "all" });
    await ui.type("second");
    await ui.press("enter");
    const screen = await ui.waitFor("out of budget, message not delivered");
    expect(screen.replace(/\s+/g, " ")).toContain(
      `to go on, resume it with a higher limit: relm stop ${id}, then relm run --resume ${id} --max-turns HIGHER`,
    );
    expect(screen).not.toContain("/quit, then");
    // The step works from here: both clients see the host stopped, the resume goes on past the old limit.
    const run = (args: string[]) => runRelm(args, { env: rig.env, cwd: rig.cwd });
    expect((await run(["stop", id as string])).code).toBe(0);
    await ui.waitFor("the session host stopped");
    await other.waitFor("the session host stopped");
    const raised = await run(["run", "--resume", id as string, "--max-turns", "2", "third"]);
    expect(raised.code, raised.stderr).toBe(0);
    expect(raised.stdout).toContain("third");
  });

  it("names the preset chosen (ollama here) before and after the session starts, not its wire format", async () => {
    const rig = await startRig("openai", { script: [{ text: "hi" }] }, { env: { RELM_PROVIDER: "ollama" } });
    const via = `scripted via ollama at ${new URL(rig.model.openaiBaseUrl).host}`;
    const ui = open(rig, [], { cols: 160 });
    await ui.waitFor(via);
    await ui.type("hello");
    await ui.press("enter");
    await ui.waitFor("✓ 1 model call");
    await ui.type("/cost");
    await ui.press("enter");
    const shown = await ui.waitFor(`model        ${via}`);
    expect(shown).not.toContain("via openai");
  });

  it("--max-cost for a model without a price is refused before the screen is taken, not at the first message", async () => {
    const rig = await startRig("openai", { script: [{ text: "never asked" }] });
    const ui = open(rig, ["--max-cost", "1"], { cols: 160 });
    const exit = await ui.waitForExit();
    expect(exit.exitCode).not.toBe(0);
    expect(ui.output()).toContain('--max-cost needs the price of "scripted", which relm does not know');
    expect(ui.output()).not.toContain("new session");
  });
});
