import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionClient } from "../../../src/host/client.js";
import type { ScriptContext } from "../../../src/scripted/index.js";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { byTask } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

describe("autonomous mode with gates", () => {
  it("does not stop on the model's word: a failing gate goes back to it until the gate passes", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: write result.txt": [
          { text: "All done!" },
          (ctx) => ({
            code: `# the gate said: ${JSON.stringify(ctx.lastUserText?.slice(0, 300))}\nopen('result.txt', 'w').write('42')`,
          }),
          { text: "Now it is really done." },
        ],
      }),
    });
    const result = await runRelm(
      ["run", "--gate", "test -f result.txt", "--gate", "grep -q 42 result.txt", "TASK: write result.txt"],
      {
        env: rig.env,
        cwd: rig.cwd,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/gates passed: .*2 of 2 gate commands exited 0/s);
    // The failure reached the model as the next message.
    expect(rig.model.requests[1]?.rawBody).toMatch(/gate `test -f result.txt` failed/);
    const runs = onlyJournal(rig.home).lines.filter((l) => l.type === "gate_run");
    expect(runs.map((r) => r.passed)).toEqual([false, true]);
    const last = onlyJournal(rig.home).lines.filter((l) => l.type !== "notification");
    expect(last.at(-1)).toMatchObject({
      type: "autonomy_end",
      outcome: "gates passed",
    });
  });

  it("an interrupt or relm stop while a gate runs stops the gate, not only the next turn", async () => {
    // A gate ran to its end (up to --gate-timeout, 5 minutes by default) whatever the person did:
    // Esc in a front end only kept the next turn from starting, and relm stop waited for the gate.
    const rig = await startRig("openai", {
      script: byTask({ "TASK: gated": [{ text: "Finished, I think." }, { text: "Finished again." }] }),
    });
    const gate = "touch gate-started; sleep 120";
    const started = await runRelm(["run", "--detach", "--gate", gate, "TASK: gated"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    const marker = join(rig.cwd, "gate-started");
    const lines = () => onlyJournal(rig.home).lines;
    try {
      await until(() => (existsSync(marker) ? true : undefined), 60_000);
      const client = (await SessionClient.connect(rig.home, id)) as SessionClient;
      try {
        expect((await client.call("interrupt", {})).interrupted).toBe(true);
      } finally {
        client.close();
      }
      await until(() => (lines().some((l) => l.type === "autonomy_end") ? true : undefined), 60_000);
      expect(lines().find((l) => l.type === "autonomy_end")?.outcome).toBe("interrupted");
      expect(lines().find((l) => l.type === "gate_run")?.passed).toBe(false);
      expect(rig.model.requests).toHaveLength(1); // no turn after the interrupted gate

      // Again, and this time relm stop: it returns once the gate is stopped and the session saved.
      rmSync(marker);
      const sent = await runRelm(["send", id, "try once more"], { env: rig.env });
      expect(sent.code, sent.stderr).toBe(0);
      await until(() => (existsSync(marker) ? true : undefined), 60_000);
      const stop = await runRelm(["stop", id], { env: rig.env, timeoutMs: 60_000 });
      expect(stop.code, stop.stderr).toBe(0);
      expect(
        lines()
          .filter((l) => l.type === "autonomy_end")
          .map((l) => l.outcome),
      ).toEqual(["interrupted", "interrupted"]);
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
    }
  }, 240_000);

  it("runs gates with the kernels' environment: no keys or secrets, --pass-env names still pass", async () => {
    const rig = await startRig("openai", { script: byTask({ "TASK: check env": [{ text: "done" }] }) });
    // The gate writes what it saw, so a failure says which variable reached it.
    const gate = 'env | grep -E "^(MY_SERVICE_TOKEN|OPENAI_API_KEY)=" > gate-env.txt; test ! -s gate-env.txt';
    const result = await runRelm(
      [
        "run",
        "--pass-env",
        "SHARED_PASSWORD",
        "--gate",
        gate,
        "--gate",
        'test "$SHARED_PASSWORD" = passed-on',
        "TASK: check env",
      ],
      {
        env: {
          ...rig.env,
          OPENAI_API_KEY: "sk-gate-test-0123456789",
          MY_SERVICE_TOKEN: "tok-gate-test-0123456789",
          SHARED_PASSWORD: "passed-on",
        },
        cwd: rig.cwd,
      },
    );
    expect(result.code, `${result.stderr}\n${readFileSync(join(rig.cwd, "gate-env.txt"), "utf8")}`).toBe(0);
  });

  it("stops with exit 4 when the same gate keeps failing and nothing changes", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: never fixed": Array.from({ length: 10 }, () => ({ text: "I think it works." })),
      }),
    });
    const result = await runRelm(
      ["run", "--gate", "false", "--max-gate-failures", "2", "TASK: never fixed"],
      {
        env: rig.env,
        cwd: rig.cwd,
      },
    );
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(
      /gates still failing: the same gate failed 2 times with no change in the files/,
    );
    expect(onlyJournal(rig.home).lines.filter((l) => l.type === "gate_run")).toHaveLength(2);
  });

  it("--max-turns ends an autonomous run with exit 3 and names the budget", async () => {
    const rig = await startRig("openai", {
      script: byTask({ "TASK: endless": Array.from({ length: 10 }, (_, i) => ({ code: `print(${i})` })) }),
    });
    const result = await runRelm(["run", "--gate", "false", "--max-turns", "3", "TASK: endless"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/budget exhausted: .*--max-turns \(3 of 3 model calls used\)/);
    expect(rig.model.requests).toHaveLength(3);
    // Said once: the report used to read "budget exhausted: budget exhausted: --max-turns ...".
    expect(result.stderr).not.toContain("budget exhausted: budget exhausted");
    const end = onlyJournal(rig.home).lines.find((l) => l.type === "autonomy_end");
    expect(end?.report).toMatch(
      /^budget exhausted: --max-turns \(3 of 3 model calls used\); spent 3 model calls/,
    );
  });

  it("a child's spend pushing the tree over --max-cost stops it within one call", async () => {
    const rig = await startRig(
      "openai",
      {
        script: byTask({
          "ROOT: delegate": [{ code: 'rlm("CHILD: spend")' }, { text: "never" }],
          "CHILD: spend": Array.from({ length: 40 }, (_, i) => ({ code: `print(${i})` })),
        }),
      },
      // $1000 per million tokens: each call costs about $1, so $3 allows a few calls.
      { config: { prices: { scripted: { input: 1000, output: 1000 } } } },
    );
    const result = await runRelm(["run", "--max-cost", "3", "ROOT: delegate"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/--max-cost/);
    // Walk the calls in order: once the spend reached $3, at most the one call then in flight follows.
    const costs = rig.model.requests.map((r) => (Math.ceil(r.rawBody.length / 4) * 1000) / 1e6);
    let spent = 0;
    let afterLimit = 0;
    for (const c of costs) {
      if (spent >= 3) afterLimit++;
      spent += c;
    }
    expect(afterLimit).toBeLessThanOrEqual(1);
  });
});

describe("goals, stalls and compaction", () => {
  it("pauses a goal after K continuations with no change, no output and no progress", async () => {
    const rig = await startRig("openai", {
      script: byTask({ "TASK: idle": Array.from({ length: 10 }, () => ({ text: "Thinking about it." })) }),
    });
    const result = await runRelm(["run", "--autonomous", "--goal", "TASK: idle forever"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /stalled: the goal is paused \(no file change, no new cell output and no progress note in 3 continuations\)/,
    );
    const lines = onlyJournal(rig.home).lines;
    expect(lines.some((l) => l.type === "goal_paused")).toBe(true);
    // The first turn plus three continuations, then nothing more: no hot loop.
    expect(rig.model.requests).toHaveLength(4);
    expect(rig.model.requests[1]?.rawBody).toContain("Goal: TASK: idle forever");
    // The continuations are journaled as autonomy's turns, not the person's (/rewind does not offer them).
    expect(lines.filter((l) => l.type === "user").map((l) => l.from)).toEqual([
      undefined,
      "autonomy",
      "autonomy",
      "autonomy",
    ]);
  });

  it("done() ends an autonomous run without gates", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: finish": [
          { text: "Starting." },
          { code: 'goal.progress("wrote nothing yet")\ndone("finished properly")' },
        ],
      }),
    });
    const result = await runRelm(["run", "--autonomous", "TASK: finish"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("finished properly");
    expect(result.stderr).toMatch(/done: the model called done\(\)/);
  });

  it("a later message to an autonomous session runs on until done() is called again", async () => {
    // done() set the goal's flag for good: every later message to the session (relm send, a heartbeat
    // tick) ended after its first turn as "done: the model called done()", though the model had not.
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: twice": [
          { code: 'done("first part")' },
          { text: "Looking at the second part." },
          { code: 'done("second part")' },
        ],
      }),
    });
    const started = await runRelm(["run", "--detach", "--autonomous", "TASK: twice"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    const ends = () => onlyJournal(rig.home).lines.filter((l) => l.type === "autonomy_end");
    try {
      await until(() => (ends().length >= 1 ? true : undefined), 60_000);
      const sent = await runRelm(["send", id, "now the second part"], { env: rig.env });
      expect(sent.code, sent.stderr).toBe(0);
      await until(() => (ends().length >= 2 ? true : undefined), 60_000);
      expect(ends().map((l) => l.report)).toEqual([
        "done: the model called done()",
        "done: the model called done()",
      ]);
      // The text answer was followed by a continuation, and the second done() is what ended the run.
      expect(rig.model.requests).toHaveLength(3);
      expect(rig.model.requests[2]?.rawBody).toContain("[relm: autonomous mode]");
      const finals = onlyJournal(rig.home).lines.filter((l) => l.type === "final");
      expect(finals.at(-1)?.text).toBe("second part");
    } finally {
      await runRelm(["stop", id], { env: rig.env });
    }
  });

  it("compacts a long run: the next request is smaller, states the goal, the kernel keeps its variables", async () => {
    const isSummaryRequest = (ctx: ScriptContext) => !(ctx.body as { tools?: unknown }).tools;
    // Steps by call count, not by turns in the request: a compaction shortens the conversation.
    const steps = [
      { code: "kept_value = 'still-here-123'\nprint('x' * 1500)" },
      ...Array.from({ length: 5 }, (_, i) => ({ code: `print('${"y".repeat(1500)}', ${i})` })),
      { code: "print(kept_value)" },
    ];
    let step = 0;
    const routed = (ctx: ScriptContext) => {
      const next = steps[step++];
      return next ?? { text: `finished with ${ctx.lastToolResult?.trim()}` };
    };
    const rig = await startRig(
      "openai",
      {
        script: async (ctx) =>
          isSummaryRequest(ctx)
            ? {
                text: "## Goal\nTASK: long\n## Progress so far\nPrinted a lot.\n## Live kernel variables\n- `kept_value`",
              }
            : routed(ctx),
      },
      { config: { contextWindows: { scripted: 4000 } } },
    );
    const result = await runRelm(["run", "--goal", "TASK: long", "TASK: long"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("finished with still-here-123");
    const lines = onlyJournal(rig.home).lines;
    const compaction = lines.find((l) => l.type === "compaction");
    expect(compaction).toBeDefined();
    const bodies = rig.model.requests.map((r) => r.rawBody);
    const summaryIndex = rig.model.requests.findIndex((r) => !(r.body as { tools?: unknown }).tools);
    const before = bodies[summaryIndex - 1] as string;
    const after = bodies[summaryIndex + 1] as string;
    expect(after.length).toBeLessThan(before.length);
    expect(after).toContain("TASK: long");
    expect(after).toContain("earlier turns of this session were compacted");
  });

  it("compacts before a request that a large cell output would push past the window, not a turn later", async () => {
    const isSummaryRequest = (ctx: ScriptContext) => !(ctx.body as { tools?: unknown }).tools;
    // The window is 6000 tokens: the prompt before the last cell is about half of it, and that cell's
    // 12 000 characters (about 3000 tokens) would take the next prompt past it.
    const steps = [
      { code: "print('a' * 6000)" },
      { code: "print('b' * 400)" },
      { code: "print('c' * 12000)" },
      { text: "fits" },
    ];
    let step = 0;
    const rig = await startRig(
      "openai",
      {
        script: async (ctx) =>
          isSummaryRequest(ctx)
            ? { text: "## Goal\nTASK: fill\n## Progress so far\nPrinted a." }
            : (steps[step++] ?? { text: "again" }),
      },
      { config: { contextWindows: { scripted: 6000 } } },
    );
    const result = await runRelm(["run", "TASK: fill"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    const lines = onlyJournal(rig.home).lines;
    const order = lines
      .filter((l) => l.type === "model_response" || l.type === "compaction")
      .map((l) => l.type);
    expect(order).toEqual([
      "model_response",
      "model_response",
      "model_response",
      "compaction",
      "model_response",
    ]);
    const prompts = lines
      .filter((l) => l.type === "model_response")
      .map((l) => (l.usage as { inputTokens: number }).inputTokens);
    expect(Math.max(...prompts)).toBeLessThan(6000);
  });

  it("an automatic compaction whose summary request fails is journaled and shown; the run goes on", async () => {
    const isSummaryRequest = (ctx: ScriptContext) => !(ctx.body as { tools?: unknown }).tools;
    const steps = [
      { code: "print('x' * 3000)" },
      { code: "print('y' * 3000)" },
      { code: "print('z')" },
      { text: "finished anyway" },
    ];
    let step = 0;
    const rig = await startRig(
      "openai",
      {
        script: async (ctx) =>
          isSummaryRequest(ctx)
            ? { status: 503, body: '{"error":{"message":"summary refused here"}}' }
            : (steps[step++] ?? { text: "again" }),
      },
      { config: { contextWindows: { scripted: 3500 } } },
    );
    const result = await runRelm(["run", "TASK: long"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("finished anyway");
    // The summary was asked for (and refused) before the model saw the conversation again.
    expect(rig.model.requests.some((r) => !(r.body as { tools?: unknown }).tools)).toBe(true);
    const lines = onlyJournal(rig.home).lines;
    expect(lines.some((l) => l.type === "compaction")).toBe(false);
    const warnings = lines.filter((l) => l.type === "warning").map((l) => String(l.message));
    expect(warnings.some((w) => /compaction failed: .*summary refused here/.test(w))).toBe(true);
    // Each failed try of the summary request is on disk before the next one.
    const firstWarning = lines.findIndex((l) => l.type === "warning");
    const retries = lines.slice(0, firstWarning).filter((l) => l.type === "model_retry");
    expect(retries.map((l) => l.attempt)).toEqual([2, 3, 4, 5]);
    expect(result.stderr).toMatch(/compaction failed: .*summary refused here/);
  });
});

describe("file checkpoints", () => {
  it("relm undo restores a file the agent broke; the user's own .git is untouched", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: break it": [
          { code: "open('app.py', 'w').write('broken!')\nopen('new.txt', 'w').write('junk')" },
          { text: "oops" },
        ],
      }),
    });
    const git = (...args: string[]) => execFileSync("git", args, { cwd: rig.cwd, encoding: "utf8" });
    git("init", "-q");
    git("config", "user.email", "t@example.com");
    git("config", "user.name", "t");
    writeFileSync(join(rig.cwd, "app.py"), "print('fine')\n");
    git("add", "app.py");
    git("commit", "-qm", "init");
    const head = git("rev-parse", "HEAD");
    const index = readFileSync(join(rig.cwd, ".git", "index"));

    const result = await runRelm(["run", "TASK: break it"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(rig.cwd, "app.py"), "utf8")).toBe("broken!");
    const id = onlyJournal(rig.home).lines[0]?.id as string;
    expect((await runRelm(["checkpoints", id], { env: rig.env })).stdout).toMatch(/1/);

    const undo = await runRelm(["undo", id], { env: rig.env });
    expect(undo.code, undo.stderr).toBe(0);
    expect(readFileSync(join(rig.cwd, "app.py"), "utf8")).toBe("print('fine')\n");
    expect(() => readFileSync(join(rig.cwd, "new.txt"))).toThrow();
    expect(git("rev-parse", "HEAD")).toBe(head);
    expect(readFileSync(join(rig.cwd, ".git", "index")).equals(index)).toBe(true);
  });
});
