import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kernelsLeft, pythonsOf, RELM_BIN, runRelm } from "../../support/cli.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { byTask, echoLastCell, whoAsks } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { poll, pythonWaitForFile as waitForFile } from "../../support/wait.js";

const startRig = useRigs();

/** The final answer of the root: whatever its last cell printed. */

function childJournals(dir: string): { id: string; lines: JournalLine[] }[] {
  const children = join(dir, "children");
  if (!existsSync(children)) return [];
  return readdirSync(children).map((id) => ({
    id,
    lines: readFileSync(join(children, id, "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as JournalLine),
  }));
}

describe("rlm() from a cell", () => {
  it("returns the child's answer; inputs are kernel variables, never prompt text", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: delegate": [
          {
            code: 'big = "Z" * 10_000_000\nanswer = rlm("CHILD: check the inputs", n=5, big=big)\nprint("child said:", answer)',
          },
          echoLastCell,
        ],
        "CHILD: check the inputs": [{ code: "print(n == 5, type(big).__name__, len(big))" }, echoLastCell],
      }),
    });
    const result = await runRelm(["run", "ROOT: delegate"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("child said: True str 10000000");
    for (const r of rig.model.requests) {
      expect(r.rawBody.length).toBeLessThan(100_000);
      expect(r.rawBody).not.toContain("Z".repeat(1000));
    }
    const childPrompt =
      rig.model.requests.find((r) => r.rawBody.includes("CHILD: check the inputs"))?.rawBody ?? "";
    expect(childPrompt).toContain("`n`: int");
    expect(childPrompt).toContain("`big`: str, 10,000,000 chars");

    const { dir, lines } = onlyJournal(rig.home);
    const spawned = lines.find((l) => l.type === "child_spawned");
    const finished = lines.find((l) => l.type === "child_finished");
    expect(spawned).toMatchObject({ task: "CHILD: check the inputs" });
    expect(finished).toMatchObject({ id: spawned?.id, status: "done" });
    const [child] = childJournals(dir);
    expect(child?.id).toBe(spawned?.id);
    expect(child?.lines[0]).toMatchObject({ type: "header", parent: lines[0]?.id });
    expect(child?.lines.some((l) => l.type === "cell")).toBe(true);
  });

  it("hands a submitted value back to the parent's code as a Python object", async () => {
    const rig = await startRig("anthropic", {
      script: byTask({
        "ROOT: get a dict": [{ code: 'r = rlm("CHILD: submit")\nprint(type(r).__name__, r)' }, echoLastCell],
        "CHILD: submit": [{ code: 'submit({"a": 1})' }],
      }),
    });
    const result = await runRelm(["run", "ROOT: get a dict"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("dict {'a': 1}");
  });

  it("an unpicklable input is a TypeError naming the variable, and no child starts", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: bad input": [
          {
            code: 'import threading\ntry:\n    rlm("CHILD: never", lock=threading.Lock())\nexcept TypeError as e:\n    print(e)',
          },
          echoLastCell,
        ],
      }),
    });
    const result = await runRelm(["run", "ROOT: bad input"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^rlm: variable 'lock' cannot be pickled/);
    expect(rig.model.requests).toHaveLength(2);
  });

  it("rlm.map runs one child per item and keeps the input order", async () => {
    const rig = await startRig("openai", {
      latencyMs: 300,
      script: byTask({
        "ROOT: map": [{ code: 'print(rlm.map("CHILD: square the item", list(range(8))))' }, echoLastCell],
        "CHILD: square the item": [{ code: "submit(item * item)" }],
      }),
    });
    const result = await runRelm(["run", "ROOT: map"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("[0, 1, 4, 9, 16, 25, 36, 49]");
    expect(onlyJournal(rig.home).lines.filter((l) => l.type === "child_finished")).toHaveLength(8);
  });

  it("llm() and llm.batch() are plain completions counted in the journal", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: classify": [
          { code: 'print(llm("LLM: one"), llm.batch(["LLM: two", "LLM: three"]))' },
          echoLastCell,
        ],
        "LLM: one": [{ text: "first" }],
        "LLM: two": [{ text: "second" }],
        "LLM: three": [{ text: "third" }],
      }),
    });
    const result = await runRelm(["run", "ROOT: classify"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("first ['second', 'third']");
    const plain = rig.model.requests.filter((r) => whoAsks({ body: r.body }).task.startsWith("LLM: "));
    expect(plain).toHaveLength(3);
    for (const r of plain) expect((r.body as { tools?: unknown[] }).tools ?? []).toHaveLength(0);
    expect(onlyJournal(rig.home).lines.filter((l) => l.type === "llm_call")).toHaveLength(3);
  });
});

describe("llm() over a failing endpoint", () => {
  it("journals each retry of an llm() call before waiting to try again", async () => {
    // byTask answers a request by its turn, the same for each try: the flaky call's tries are counted here.
    let tries = 0;
    const flaky = () =>
      ++tries === 1 ? { status: 503, body: "upstream busy" } : { text: "answered at last" };
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: ask": [{ code: 'print(llm("LLM: flaky"))' }, echoLastCell],
        "LLM: flaky": [flaky],
      }),
    });
    const result = await runRelm(["run", "ROOT: ask"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("answered at last");
    const lines = onlyJournal(rig.home).lines;
    const retry = lines.findIndex((l) => l.type === "model_retry");
    expect(lines[retry]).toMatchObject({ turn: 1, attempt: 2 });
    expect(String(lines[retry]?.reason)).toMatch(/HTTP 503.*upstream busy/);
    expect(retry).toBeLessThan(lines.findIndex((l) => l.type === "llm_call"));
    expect(result.stderr).toMatch(/retry 2/);
  });
});

describe("Agent handles", () => {
  it("spawn, send a message, and read the result", async () => {
    let home = "";
    const messageJournaled = () => {
      const { lines } = onlyJournal(home);
      return lines.some((l) => l.type === "message");
    };
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: talk": [
          {
            code: 'a = rlm.spawn("CHILD: listen", name="listener")\na.send("the password is swordfish")\nprint(a.name, a.result())',
          },
          echoLastCell,
        ],
        "CHILD: listen": [
          async () => {
            // Answer only once the parent's message is on record, so it is waiting at the next boundary.
            await poll(() => (messageJournaled() ? true : undefined), 60_000);
            return { code: "print('working')" };
          },
          (ctx) => ({ text: `heard: ${ctx.lastUserText?.split("\n").at(-1)}` }),
        ],
      }),
    });
    home = rig.home;
    const result = await runRelm(["run", "ROOT: talk"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("listener heard: the password is swordfish");
    const [child] = childJournals(onlyJournal(rig.home).dir);
    expect(child?.lines.some((l) => l.type === "message" && l.from === "parent")).toBe(true);
  });

  it("cancel() ends a running child and its kernel", async () => {
    // The parent cancels once the child's cell is under way (it leaves a file), not after a fixed wait.
    let started = "";
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: cancel": [
          () => ({
            code: [
              'a = rlm.spawn("CHILD: sleep")',
              waitForFile(started),
              "try:\n    a.result(timeout=0.2)\nexcept TimeoutError:\n    print('still running:', a.status)",
              "a.cancel()",
              "try:\n    a.result()\nexcept rlm.ChildError as e:\n    print('ended:', e.status)",
            ].join("\n"),
          }),
          echoLastCell,
        ],
        "CHILD: sleep": [
          () => ({ code: `open(${JSON.stringify(started)}, "w").close()\nimport time\ntime.sleep(120)` }),
          { text: "woke up" },
        ],
      }),
    });
    started = join(rig.cwd, "child-started");
    const result = await runRelm(["run", "ROOT: cancel"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("still running: running\nended: cancelled");
    const { lines } = onlyJournal(rig.home);
    expect(lines.find((l) => l.type === "child_finished")?.status).toBe("cancelled");
  });

  it("agents are awaitable: asyncio.gather and rlm.collect both return results in order", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: gather": [
          {
            code: [
              "import asyncio",
              'agents = [rlm.spawn("CHILD: echo", word=w) for w in ["alpha", "beta", "gamma"]]',
              "print(await asyncio.gather(*agents))",
              'print(rlm.collect([rlm.spawn("CHILD: echo", word="delta")]))',
            ].join("\n"),
          },
          echoLastCell,
        ],
        "CHILD: echo": [{ code: "submit(word.upper())" }],
      }),
    });
    const result = await runRelm(["run", "ROOT: gather"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("['ALPHA', 'BETA', 'GAMMA']\n['DELTA']");
  });

  it("cancelling a child cancels its own children", async () => {
    // The middle child is cancelled once the grandchild's cell is under way (it leaves a file).
    let started = "";
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: cancel the middle": [
          () => ({
            code: [
              'a = rlm.spawn("CHILD: delegate and wait")',
              waitForFile(started),
              "try:\n    a.result(timeout=0.2)\nexcept TimeoutError:\n    a.cancel()",
              "try:\n    a.result()\nexcept rlm.ChildError as e:\n    print(e.status)",
            ].join("\n"),
          }),
          echoLastCell,
        ],
        "CHILD: delegate and wait": [{ code: 'rlm("GRANDCHILD: sleep")' }, { text: "never" }],
        "GRANDCHILD: sleep": [
          () => ({ code: `open(${JSON.stringify(started)}, "w").close()\nimport time\ntime.sleep(120)` }),
          { text: "never" },
        ],
      }),
    });
    started = join(rig.cwd, "grandchild-started");
    const result = await runRelm(["run", "ROOT: cancel the middle"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("cancelled");
    const [child] = childJournals(onlyJournal(rig.home).dir);
    const grandchild = child?.lines.find((l) => l.type === "child_finished");
    expect(grandchild?.status).toBe("cancelled");
  });

  it("rlm.agents() lists children with status and spend", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: list": [
          {
            code: 'rlm("CHILD: quick")\nfor a in rlm.agents():\n    print(a["name"], a["status"], a["turns"], a["tokens"] > 0)',
          },
          echoLastCell,
        ],
        "CHILD: quick": [{ text: "quick answer" }],
      }),
    });
    const result = await runRelm(["run", "ROOT: list"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("child-1 done 1 True");
  });
});

describe("limits", () => {
  it("explains the depth limit to the code that hits it", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: go deep": [{ code: 'print(rlm("CHILD: go deeper"))' }, echoLastCell],
        "CHILD: go deeper": [
          { code: 'try:\n    rlm("GRANDCHILD: never")\nexcept RuntimeError as e:\n    print("refused:", e)' },
          echoLastCell,
        ],
      }),
    });
    const result = await runRelm(["run", "--max-depth", "1", "ROOT: go deep"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("refused: rlm: no sub-agents at depth 1 (--max-depth 1)");
    const childPrompt = rig.model.requests.find((r) => r.rawBody.includes("CHILD: go deeper"))?.rawBody ?? "";
    expect(childPrompt).toContain("Sub-agents: not available at your depth");
    expect(rig.model.requests.some((r) => r.rawBody.includes('GRANDCHILD: never"'))).toBe(false);
  });

  it("a child whose kernel crashes fails with the reason", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: crash a child": [
          {
            code: 'try:\n    rlm("CHILD: crash")\nexcept rlm.ChildError as e:\n    print(e.status, "|", e.reason)',
          },
          echoLastCell,
        ],
        "CHILD: crash": [{ code: "import os\nos._exit(7)" }, { text: "never" }],
      }),
    });
    const result = await runRelm(["run", "ROOT: crash a child"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^failed \| its kernel died during a cell: .*7/);
  });

  it("--max-tokens reached inside a child stops the whole tree with exit 3", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: spend": [{ code: 'rlm("CHILD: spend a lot")' }, { text: "never" }],
        "CHILD: spend a lot": Array.from({ length: 30 }, (_, i) => ({ code: `print(${i})` })),
      }),
    });
    const result = await runRelm(["run", "--max-tokens", "4000", "ROOT: spend"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/--max-tokens/);
    const { lines } = onlyJournal(rig.home);
    expect(lines.find((l) => l.type === "child_finished")?.status).toBe("failed");
    expect(lines.some((l) => l.type === "budget_stop")).toBe(true);
    expect(rig.model.requests.length).toBeLessThan(20);
  });
});

describe("sub-agent specs", () => {
  it("loads .relm/agents/NAME.yaml, lists it in the parent's prompt and explains a bad file", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: review": [
          {
            code: [
              'print(rlm("CHILD: review this", spec="reviewer"))',
              'try:\n    rlm("CHILD: never", spec="broken")\nexcept ValueError as e:\n    print(e)',
            ].join("\n"),
          },
          echoLastCell,
        ],
        "CHILD: review this": [{ text: "looks fine" }],
      }),
    });
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const agents = join(rig.cwd, ".relm", "agents");
    mkdirSync(agents, { recursive: true });
    writeFileSync(
      join(agents, "reviewer.yaml"),
      "description: Reviews a diff for bugs\ninstructions: |\n  Be strict. Marker OWL-3.\nmax_turns: 3\n",
    );
    writeFileSync(join(agents, "broken.yaml"), "description: ok\nmodel: x\ncolour: blue\n");
    const result = await runRelm(["run", "ROOT: review"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("looks fine");
    expect(result.stdout).toMatch(/broken\.yaml:3: unknown field "colour"/);
    const rootPrompt = rig.model.requests[0]?.rawBody ?? "";
    expect(rootPrompt).toContain("- reviewer: Reviews a diff for bugs");
    const childPrompt =
      rig.model.requests.find((r) => r.rawBody.includes("CHILD: review this"))?.rawBody ?? "";
    expect(childPrompt).toContain("Marker OWL-3.");
  });
});

describe("visibility", () => {
  it("--json streams children's events tagged with their id", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: watch": [{ code: 'print(rlm("CHILD: visible"))' }, echoLastCell],
        "CHILD: visible": [{ code: "print('inside')" }, { text: "seen" }],
      }),
    });
    const result = await runRelm(["run", "--json", "ROOT: watch"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; agent?: string; id?: string });
    const spawned = events.find((e) => e.type === "child_spawned" && !e.agent);
    const childEvents = events.filter((e) => e.agent === spawned?.id);
    expect(childEvents.map((e) => e.type)).toEqual(
      expect.arrayContaining(["session", "cell", "cell_output", "final"]),
    );
    const order = events.map((e) => `${e.agent ?? "root"}:${e.type}`);
    expect(order.indexOf("root:child_spawned")).toBeLessThan(order.indexOf(`${spawned?.id}:cell`));
    expect(order.indexOf(`${spawned?.id}:final`)).toBeLessThan(order.indexOf("root:child_finished"));
  });
});

describe("no orphans", () => {
  it.each(["SIGINT", "SIGKILL"] as const)(
    "%s to relm while children run leaves no Python behind",
    async (signal) => {
      const rig = await startRig("openai", {
        script: byTask({
          "ROOT: fan out": [{ code: 'rlm.map("CHILD: sleep", range(3))' }, { text: "never" }],
          "CHILD: sleep": [{ code: "import time\ntime.sleep(120)" }, { text: "never" }],
        }),
      });
      const child = spawn(process.execPath, [RELM_BIN, "run", "ROOT: fan out"], {
        env: rig.env,
        cwd: rig.cwd,
      });
      const sleeping = () => {
        try {
          // A child's kernel is up and its cell sent once both are on record.
          return childJournals(onlyJournal(rig.home).dir).filter(
            (c) => c.lines.some((l) => l.type === "kernel") && c.lines.some((l) => l.type === "cell"),
          ).length;
        } catch {
          return 0;
        }
      };
      await poll(() => (sleeping() >= 3 ? true : undefined), 60_000);
      expect(sleeping()).toBe(3);
      // The root's kernel, the template, and three kernels forked from it.
      expect(pythonsOf(rig.home).length).toBeGreaterThanOrEqual(5);
      const code = await new Promise<number | null>((resolve) => {
        child.on("close", resolve);
        child.kill(signal);
      });
      expect(code).toBe(signal === "SIGINT" ? 130 : null);
      expect(await kernelsLeft(rig.home, 30_000)).toEqual([]);
    },
  );
});
