import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

describe("more budgets", () => {
  it("stops at --max-time before the next model call, exit 3", async () => {
    const rig = await startRig("openai", {
      // A cell that outlasts any --max-time: the budget interrupts it (the run takes the budget's second,
      // not the cell's ten minutes), and no next call follows.
      script: [{ code: "import time\ntime.sleep(600)" }, { text: "never" }],
    });
    const result = await runRelm(["run", "--max-time", "1s", "slow"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/--max-time/);
    // Stopped for the time budget. Where its second ran out is the machine's doing: in the cell (one
    // request), or, when the start alone took longer (load 20-33), before the first request; never after.
    const stop = onlyJournal(rig.home).lines.find((l) => l.type === "budget_stop");
    expect(stop).toMatchObject({ budget: "max-time" });
    expect(rig.model.requests.length).toBeLessThanOrEqual(1);
  });

  it("stops at --max-cost using the configured prices before a request it could not pay for, exit 3", async () => {
    const rig = await startRig(
      "openai",
      { script: [{ code: "print(1)" }, { code: "print(2)" }, { text: "never" }] },
      // $5000 per million tokens: a first scripted request of ~600 tokens would cost about $3.
      { config: { prices: { scripted: { input: 5000, output: 5000 } } } },
    );
    const result = await runRelm(["run", "--max-cost", "1", "spend"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /--max-cost \(\$0\.0000 of \$1\.00 spent; the next request may cost up to \$\d+\.\d+/,
    );
    expect(rig.model.requests).toHaveLength(0);
    const final = onlyJournal(rig.home).lines.find((l) => l.type === "budget_stop");
    expect((final?.spent as { cost: number } | undefined)?.cost).toBe(0);
  });

  it("refuses --max-cost for a model whose price is unknown", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const result = await runRelm(["run", "--max-cost", "1", "spend"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--max-cost needs the price of "scripted"/);
    expect(rig.model.requests).toHaveLength(0);
  });
});

describe("prompt and aliases", () => {
  it("`relm -p` runs a task, and the project's AGENTS.md is in the system prompt", async () => {
    const rig = await startRig("anthropic", { script: [{ text: "ok" }] });
    writeFileSync(join(rig.cwd, "AGENTS.md"), "Always answer in haiku. Marker: ZEBRA-7.\n");
    const result = await runRelm(["-p", "hello"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("ok");
    const body = JSON.parse(rig.model.requests[0]?.rawBody ?? "{}") as { system: { text: string }[] };
    expect(body.system[0]?.text).toContain("Marker: ZEBRA-7.");
    expect(body.system[0]?.text).toContain(`Working directory: ${rig.cwd}`);
  });

  it("explains a model the endpoint does not serve", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }], models: ["llama3"] });
    const result = await runRelm(["run", "hello"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/scripted/);
    expect(result.stderr).toMatch(/404|not found/i);
  });

  it("reads the task from stdin when none is given", async () => {
    const rig = await startRig("openai", { script: [(ctx) => ({ text: `task was: ${ctx.lastUserText}` })] });
    const result = await runRelm(["run"], { env: rig.env, cwd: rig.cwd, input: "from a pipe\n" });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("task was: from a pipe");
  });
});

describe("submit() at the root", () => {
  it("prints the submitted value as JSON, or its repr when it has no JSON form", async () => {
    const rig = await startRig("openai", { script: [{ code: 'submit({"a": 1, "b": [1, 2]})' }] });
    const result = await runRelm(["run", "give me data"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ a: 1, b: [1, 2] });
    const other = await startRig("openai", {
      script: [{ code: "import fractions\nsubmit(fractions.Fraction(1, 3))" }],
    });
    const second = await runRelm(["run", "a fraction"], { env: other.env, cwd: other.cwd });
    expect(second.stdout.trim()).toBe("Fraction(1, 3)");
  });
});

describe("timeouts longer than setTimeout can take (24.8 days)", () => {
  // Node sets a delay over 2^31 - 1 ms to 1 ms: a 34-day cell timeout interrupted every cell at once,
  // and a 34-day gate timeout killed every gate as it started.
  const LONG = "3000000"; // seconds: 34.7 days

  it("a long --cell-timeout lets a cell run to its end", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "import time; time.sleep(0.5); print('slept' + ' well')" }, { text: "done" }],
    });
    const result = await runRelm(["run", "--cell-timeout", LONG, "sleep a little"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("slept well");
    expect(result.stderr).not.toContain("interrupted");
    expect(result.stderr).not.toContain("TimeoutOverflowWarning");
  });

  it("a long --gate-timeout lets the gate run to its end", async () => {
    const rig = await startRig("openai", { script: [{ text: "done" }] });
    const result = await runRelm(["run", "--gate-timeout", LONG, "--gate", "sleep 0.5 && true", "check"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("gates passed");
    expect(result.stderr).not.toContain("timed out");
  });
});

describe("one limit for a goal (4,000 characters), said alike by --goal and /goal", () => {
  const long = "g".repeat(4001);

  it("relm run --goal over the limit is a usage error naming --goal, before the model is asked", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const result = await runRelm(["run", "--goal", long, "work"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--goal must be at most 4000 characters, got 4001");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(rig.model.requests).toHaveLength(0);
    // At the limit, it is taken.
    const ok = await runRelm(["run", "--goal", "g".repeat(4000), "work"], { env: rig.env, cwd: rig.cwd });
    expect(ok.code, ok.stderr).toBe(0);
  });

  it("/goal over the limit is refused naming /goal, before and after the first message", async () => {
    const rig = await startRig("openai", { script: [{ text: "hi" }] });
    const input = [`/goal ${long}`, "hello", `/goal ${long}`, "/goal", "/exit", ""].join("\n");
    const result = await runRelm([], { env: rig.env, cwd: rig.cwd, input });
    expect(result.code, result.stderr).toBe(0);
    const said = result.stdout.match(/\/goal must be at most 4000 characters, got 4001/g);
    expect(said).toHaveLength(2);
    expect(result.stdout).toContain('no goal: /goal "OBJECTIVE" sets one');
  });
});

describe("--kernel's help", () => {
  it("lists every target its own error lists for an unknown one", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const refused = await runRelm(["run", "--kernel", "bogus", "x"], { env: rig.env, cwd: rig.cwd });
    expect(refused.code).toBe(2);
    const listed = /Use one of: (.*)\./.exec(refused.stderr)?.[1]?.split(", ") ?? [];
    expect(listed).toContain("slurm://[partition]");
    const help = await runRelm(["run", "--help"], { env: rig.env, cwd: rig.cwd });
    // Commander wraps the help at the terminal's width: one line of words to look in.
    const kernel = /--kernel <URI>\s+(.*?)\s+--/s.exec(help.stdout)?.[1]?.replace(/\s+/g, " ") ?? "";
    expect(kernel).toMatch(/^where kernels run/);
    for (const target of listed) expect(kernel).toContain(target);
    expect(rig.model.requests).toHaveLength(0);
  });
});
