import { readFileSync } from "node:fs";
// --max-time and --max-tokens are hard: the time budget interrupts the running cell and aborts the model
// request in flight, and no request may ask for more tokens than are left. Elapsed times are asserted
// only as correctness bounds of that feature (the limit plus a generous margin), never as speed figures.

import { describe, expect, it } from "vitest";
import { scheduleFile } from "../../../src/host/schedules/store.js";
import { runRelm } from "../../support/cli.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { byTask } from "../../support/router.js";
import { type Rig, rigFor, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

async function timed(
  rig: Rig,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const result = await runRelm(args, { env: rig.env, cwd: rig.cwd });
  return { ...result, ms: Date.now() - started };
}

function ofType(lines: JournalLine[], type: string): JournalLine[] {
  return lines.filter((l) => l.type === type);
}

/** Within 2 s of the limit: from the session's start (its journal header) to the journaled budget stop. */
function expectStoppedAt(lines: JournalLine[], limitMs: number): void {
  const created = Date.parse(lines[0]?.created as string);
  const stop = ofType(lines, "budget_stop")[0];
  expect(stop?.budget).toBe("max-time");
  expect(Date.parse(stop?.t as string) - created).toBeLessThanOrEqual(limitMs + 2_000);
}

/**
 * The whole process, start-up and clean-up included, with a margin for a loaded machine: far below
 * what the work it stopped would have taken (a 40 s cell, a request that never answers).
 */
const PROCESS_MARGIN_MS = 10_000;

/** The answer cap a request asked for, in either wire format. */
function maxTokensOf(body: unknown): number | undefined {
  const b = body as { max_tokens?: number; max_completion_tokens?: number };
  return b.max_completion_tokens ?? b.max_tokens;
}

/**
 * Every request asked for no more than what was left of `limit` once its prompt is counted (prompt as
 * the server counted it), and all of it together stayed within the limit.
 */
function expectWithinTokens(rig: Rig, lines: JournalLine[], limit: number): void {
  const responses = ofType(lines, "model_response");
  let spent = 0;
  rig.model.requests.forEach((request, i) => {
    const cap = maxTokensOf(request.body);
    expect(cap, `request ${i + 1} has a max_tokens`).toBeDefined();
    const usage = responses[i]?.usage as { inputTokens: number; outputTokens: number } | undefined;
    if (!usage) return;
    expect(usage.inputTokens + (cap as number)).toBeLessThanOrEqual(limit - spent);
    expect(usage.outputTokens).toBeLessThanOrEqual(cap as number);
    spent += usage.inputTokens + usage.outputTokens;
  });
  expect(spent).toBeLessThanOrEqual(limit);
  const stop = ofType(lines, "budget_stop")[0];
  expect((stop?.spent as { tokens: number } | undefined)?.tokens).toBeLessThanOrEqual(limit);
}

// The tests run side by side: most of their time is spent waiting for a time limit to run out.
describe("--max-time interrupts the work in progress", { concurrent: true }, () => {
  it("a cell sleeping 40 s under --max-time 5s is interrupted at the limit: exit 3", async (context) => {
    const rig = await rigFor(context, "openai", {
      script: [{ code: "import time\ntime.sleep(40)\nprint('not reached')" }, { text: "never" }],
    });
    const result = await timed(rig, ["run", "--max-time", "5s", "sleep"]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.ms).toBeLessThan(5_000 + PROCESS_MARGIN_MS);
    expect(result.stderr).toMatch(/--max-time/);
    const { lines } = onlyJournal(rig.home);
    expectStoppedAt(lines, 5_000);
    const cell = ofType(lines, "cell_output")[0];
    expect(cell?.status).toBe("timeout");
    expect(cell?.note).toMatch(/time budget, --max-time, ran out/);
    // The interrupt's traceback may quote the source line; the print itself must never have run.
    expect(cell?.output).not.toMatch(/^not reached$/m);
    expect(rig.model.requests).toHaveLength(1);
  });

  it("a model request that hangs is aborted at --max-time 3s: exit 3, and no retry is sent", async (context) => {
    const rig = await rigFor(context, "anthropic", { script: [{ text: "far too late", delayMs: 600_000 }] });
    const result = await timed(rig, ["run", "--max-time", "3s", "hang"]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.ms).toBeLessThan(3_000 + PROCESS_MARGIN_MS);
    expect(result.stderr).toMatch(/--max-time/);
    // The time budget starts again at a resume (docs/budgets.md): a plain resume goes on, none is raised.
    expect(result.stderr).toMatch(/or relm run --resume \S+\n$/);
    expect(rig.model.requests).toHaveLength(1);
    const { lines } = onlyJournal(rig.home);
    expect(ofType(lines, "model_retry")).toEqual([]);
    expectStoppedAt(lines, 3_000);
  });

  it("no retry starts when the time left cannot cover its backoff delay: exit 3 at once", async (context) => {
    // The server asks for 30 s before the next try; 20 s are left.
    const rig = await rigFor(context, "openai", {
      script: [{ status: 429, retryAfter: 30 }, { text: "never" }],
    });
    const result = await timed(rig, ["run", "--max-time", "20s", "rate limited"]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/--max-time .*cannot cover another try/);
    expect(rig.model.requests).toHaveLength(1);
    const { lines } = onlyJournal(rig.home);
    expect(ofType(lines, "model_retry")).toEqual([]);
    // At once: the session stopped well before its 20 s ran out, timed inside the journal (a loaded
    // machine slows the process's start and exit, which the behaviour is not about).
    const created = Date.parse(lines[0]?.created as string);
    const stop = ofType(lines, "budget_stop")[0];
    expect(stop?.budget).toBe("max-time");
    expect(Date.parse(stop?.t as string) - created).toBeLessThan(12_000);
  });

  it("requestIdleTimeout in config.json abandons a silent try and retries it", async (context) => {
    const rig = await rigFor(
      context,
      "openai",
      { script: [{ text: "silent", delayMs: 600_000 }, { text: "answered on the second try" }] },
      { config: { requestIdleTimeout: 1 } },
    );
    const result = await timed(rig, ["run", "idle"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("answered on the second try");
    expect(rig.model.requests).toHaveLength(2);
    const retry = ofType(onlyJournal(rig.home).lines, "model_retry")[0];
    expect(retry?.reason).toMatch(/no data from .* for 1000 ms/);
  });

  it("a sub-agent's cell is interrupted at the tree's deadline too: exit 3", async (context) => {
    const rig = await rigFor(context, "openai", {
      script: byTask({
        "ROOT: delegate": [{ code: 'print(rlm("CHILD: sleep"))' }, { text: "never" }],
        "CHILD: sleep": [{ code: "import time\ntime.sleep(40)" }, { text: "never" }],
      }),
    });
    const result = await timed(rig, ["run", "--max-time", "4s", "ROOT: delegate"]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.ms).toBeLessThan(4_000 + PROCESS_MARGIN_MS);
    const { lines } = onlyJournal(rig.home);
    // Stopped by its own deadline, or cancelled as its parent's interrupted cell gave up on it.
    expect(["failed", "cancelled"]).toContain(ofType(lines, "child_finished")[0]?.status);
    expectStoppedAt(lines, 4_000);
  });

  it("an autonomous run's gate is stopped at the deadline: exit 3", async (context) => {
    const rig = await rigFor(context, "openai", {
      script: [{ text: "finished" }],
      onExhausted: "repeat-last",
    });
    const result = await timed(rig, ["run", "--gate", "sleep 40", "--max-time", "3s", "work"]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.ms).toBeLessThan(3_000 + PROCESS_MARGIN_MS);
    expect(result.stderr).toMatch(/budget exhausted/);
    const { lines } = onlyJournal(rig.home);
    const results = ofType(lines, "gate_run")[0]?.results as { passed: boolean; durationMs: number }[];
    const gate = results[0];
    expect(gate?.passed).toBe(false);
    expect(gate?.durationMs).toBeLessThan(10_000);
    expect(ofType(lines, "autonomy_end")[0]?.outcome).toBe("budget exhausted");
    expectStoppedAt(lines, 3_000);
  });

  it("a detached host (as the terminal UI starts them) stops its turn at the deadline", async (context) => {
    const rig = await rigFor(context, "openai", {
      script: [{ code: "import time\ntime.sleep(40)" }, { text: "never" }],
    });
    const started = await runRelm(["run", "--detach", "--interactive", "--max-time", "5s", "sleep"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(started.code, started.stderr).toBe(0);
    try {
      const lines = await until(() => {
        try {
          const journal = onlyJournal(rig.home).lines;
          return journal.some((l) => l.type === "budget_stop") ? journal : undefined;
        } catch {
          return undefined;
        }
      }, 15_000);
      expectStoppedAt(lines, 5_000);
      expect(ofType(lines, "cell_output")[0]?.note).toMatch(/time budget/);
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
    }
  });
});

describe("--max-tokens caps every request", () => {
  for (const format of ["openai", "anthropic"] as const) {
    // 2,000: the system prompt alone is ~1,300 tokens since the toolkit's lines joined it.
    it(`a model that would answer 5,000 tokens under --max-tokens 2000 (${format}): capped, exit 3`, async () => {
      const rig = await startRig(format, { script: [{ text: "word ".repeat(4_000) }] });
      const result = await timed(rig, ["run", "--max-tokens", "2000", "talk"]);
      expect(result.code, result.stderr).toBe(3);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/--max-tokens/);
      const { lines } = onlyJournal(rig.home);
      expect(rig.model.requests).toHaveLength(1);
      expectWithinTokens(rig, lines, 2000);
      expect(ofType(lines, "truncated")[0]).toMatchObject({ by: "budget", action: "stopped" });
      expect(ofType(lines, "final")).toEqual([]);
    });
  }

  it("over several requests each asks for no more than is left, and the run stops before overshooting", async () => {
    // 3,200: two requests of a ~1,350-token prompt (request() and plan() are in it now) fit, the third
    // (a 4,000-word answer) must be capped.
    const rig = await startRig("openai", {
      script: [{ code: "print(1)" }, { code: "print(2)" }, { text: "word ".repeat(4_000) }],
    });
    const result = await timed(rig, ["run", "--max-tokens", "3200", "spend"]);
    expect(result.code, result.stderr).toBe(3);
    const { lines } = onlyJournal(rig.home);
    expect(rig.model.requests.length).toBeGreaterThanOrEqual(2);
    expectWithinTokens(rig, lines, 3200);
    expect(ofType(lines, "final")).toEqual([]);
  });

  it("stops before sending when what is left cannot cover the prompt and a minimal answer", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const result = await timed(rig, ["run", "--max-tokens", "100", "hello"]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/--max-tokens \(0 of 100 tokens used; the next request needs about \d+/);
    expect(rig.model.requests).toHaveLength(0);
  });
});

describe("an answer cut off at the output limit is never passed off as done", () => {
  // claude-3-haiku's output limit is 4,096 tokens, which relm asks for: the scripted model stops there.
  const env = { RELM_MODEL: "claude-3-haiku-20240307" };

  it("is continued, and the parts make the final answer", async () => {
    const first = "a".repeat(4096 * 4);
    const rig = await startRig(
      "anthropic",
      { script: [{ text: `${first}TAIL` }, { text: "b-end" }] },
      { env },
    );
    const result = await timed(rig, ["run", "long answer"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(`${first}b-end`);
    expect(result.stderr).toContain("⚠ the answer was cut off at 4096 tokens; asking the model to continue");
    const { lines } = onlyJournal(rig.home);
    expect(ofType(lines, "truncated")[0]).toMatchObject({
      by: "model",
      action: "continued",
      maxOutputTokens: 4096,
    });
    expect(ofType(lines, "message")[0]?.text).toMatch(/cut off at its output limit \(4096 tokens\)/);
    const second = rig.model.requests[1]?.rawBody ?? "";
    expect(second).toContain("Continue exactly where it stopped");
  });

  it("is reported as cut off, exit 1, when it keeps running into the limit", async () => {
    const rig = await startRig(
      "anthropic",
      { script: [{ text: "x".repeat(5000 * 4) }], onExhausted: "repeat-last" },
      { env },
    );
    const result = await timed(rig, ["run", "endless"]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/cut off at its output limit .*4 times in a row/);
    const { lines } = onlyJournal(rig.home);
    expect(ofType(lines, "final")).toEqual([]);
    expect(ofType(lines, "truncated").map((l) => l.action)).toEqual([
      "continued",
      "continued",
      "continued",
      "gave_up",
    ]);
  });

  it("a truncated OpenAI answer (finish_reason length) is continued too", async () => {
    // gpt-4-turbo may write 4,096 tokens; --max-tokens leaves far more, so the model's limit cuts it.
    const rig = await startRig(
      "openai",
      { script: [{ text: "c".repeat(4096 * 4 + 10) }, { text: "-done" }], models: ["gpt-4-turbo"] },
      { env: { RELM_MODEL: "gpt-4-turbo" } },
    );
    const result = await timed(rig, ["run", "--max-tokens", "200000", "long"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(`${"c".repeat(4096 * 4)}-done`);
    expect(maxTokensOf(rig.model.requests[0]?.body)).toBe(4096);
  });
});

describe("budgets are the session's, across revivals and resumes", () => {
  /** A detached session whose --max-turns 1 its first message spent; the model echoes what it is sent. */
  async function spentSession() {
    const rig = await startRig("openai", {
      script: async (ctx) => ({ text: `answered: ${ctx.lastUserText ?? ""}` }),
    });
    const run = (args: string[]) => runRelm(args, { env: rig.env, cwd: rig.cwd });
    const started = await run(["run", "--detach", "--max-turns", "1", "first"]);
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    await until(() => (ofType(onlyJournal(rig.home).lines, "final").length === 1 ? true : undefined), 30_000);
    return { rig, run, id };
  }

  it("a session out of budget refuses messages, live or revived, until it is resumed with a higher limit", async () => {
    const { rig, run, id } = await spentSession();
    const refusal = new RegExp(
      `session ${id} is out of budget, message not delivered: budget exhausted: --max-turns \\(1 of 1 model calls used\\); ` +
        `to go on, resume it with a higher limit: relm stop ${id}, then relm run --resume ${id} --max-turns HIGHER`,
    );
    // The live host that spent it.
    const live = await run(["send", id, "second"]);
    expect(live.code).toBe(1);
    expect(live.stderr).toMatch(refusal);
    expect((await run(["stop", id])).code).toBe(0);
    // A host revived for the message carries the spend from the journal: refused the same way.
    const revived = await run(["send", id, "third"]);
    expect(revived.code).toBe(1);
    expect(revived.stderr).toMatch(refusal);
    expect(rig.model.requests).toHaveLength(1);
    await run(["stop", id]);
    // A resume with the budget as it was stops before asking the model: exit 3.
    const same = await run(["run", "--resume", id, "fourth"]);
    expect(same.code).toBe(3);
    expect(same.stderr).toContain("budget exhausted: --max-turns (1 of 1 model calls used)");
    expect(same.stderr).toContain(`relm run --resume ${id} --max-turns HIGHER (what it spent still counts)`);
    expect(rig.model.requests).toHaveLength(1);
    // With a higher limit it goes on, the earlier call still counted: one more call is all it may make.
    const raised = await run(["run", "--resume", id, "--max-turns", "2", "fifth"]);
    expect(raised.code, raised.stderr).toBe(0);
    expect(raised.stdout).toContain("fifth");
    expect(rig.model.requests).toHaveLength(2);
    const users = onlyJournal(rig.home)
      .lines.filter((l) => l.type === "user")
      .map((l) => l.text);
    expect(users).not.toContain("second");
    expect(users).not.toContain("third");
  });

  it("line mode out of budget says the step from where the person is: /quit, then relm --resume", async () => {
    // The first call runs a cell: the turn wants a second call, which its budget does not allow.
    let calls = 0;
    const rig = await startRig("openai", {
      script: async (ctx) =>
        calls++ === 0 ? { code: "print(1)" } : { text: `answered: ${ctx.lastUserText}` },
    });
    const run = (args: string[], input: string) => runRelm(args, { env: rig.env, cwd: rig.cwd, input });
    // The first message's turn stops on the budget; the second is refused before any turn starts.
    const spent = await run(["--max-turns", "1"], "first\nsecond\n/exit\n");
    const id = onlyJournal(rig.home).lines[0]?.id as string;
    const step = `/quit, then relm --resume ${id} --max-turns HIGHER`;
    expect(spent.stdout).toContain(`to go on: ${step}\n`);
    expect(spent.stdout).toContain(
      `session ${id} is out of budget, message not delivered: budget exhausted: --max-turns (1 of 1 model calls used); ` +
        `to go on, resume it with a higher limit: ${step}\n`,
    );
    expect(spent.stdout).not.toContain("relm stop");
    expect(rig.model.requests).toHaveLength(1);
    // The step works: resumed with a higher limit, line mode goes on.
    const raised = await run(["--resume", id, "--max-turns", "2"], "third\n/exit\n");
    expect(raised.stdout).toMatch(/answered: [\s\S]*third/);
    expect(rig.model.requests).toHaveLength(2);
  });

  it("--max-cost for a model without a price is refused at once by line mode and --detach, not at the first message", async () => {
    const rig = await startRig("openai", { script: [{ text: "never asked" }] });
    const said = `--max-cost needs the price of "scripted", which relm does not know`;
    const line = await runRelm(["--max-cost", "1"], { env: rig.env, cwd: rig.cwd, input: "hello\n/exit\n" });
    expect(line.code).not.toBe(0);
    expect(line.stderr).toContain(said);
    expect(line.stdout).not.toContain("/help for commands"); // before the prompt
    const detached = await runRelm(["run", "--detach", "--max-cost", "1", "task"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(detached.code).toBe(line.code);
    expect(detached.stderr).toContain(said);
    expect(detached.stderr).not.toContain("session host exited"); // said here, no host started for it
    expect(rig.model.requests).toHaveLength(0);
  });

  it("a schedule's ticks start no turn in a session out of budget: dropped, said once", async () => {
    const { rig, run, id } = await spentSession();
    const add = await run(["schedule", "add", id, "--every", "1s", "tick"]);
    expect(add.code, add.stderr).toBe(0);
    // Three ticks claimed (each handed to the host) after the first: each would have started a turn.
    const claims = () =>
      (readFileSync(scheduleFile(rig.home, id), "utf8").match(/"op":"claim"/g) ?? []).length;
    await until(() => (claims() >= 3 ? true : undefined), 60_000);
    try {
      const lines = onlyJournal(rig.home).lines;
      expect(ofType(lines, "budget_stop")).toHaveLength(0);
      expect(lines.filter((l) => l.type === "user" && l.text !== "first")).toEqual([]);
      const said = ofType(lines, "warning").filter((w) => String(w.message).includes("out of budget"));
      expect(said.map((w) => w.message)).toEqual([
        expect.stringMatching(
          /: no turn while the session is out of budget \(budget exhausted: --max-turns .*resume it with a higher --max-turns$/,
        ),
      ]);
      expect(rig.model.requests).toHaveLength(1);
      // With its host gone, the waker revives it for the next tick: the budget carried from the journal,
      // the revived host drops its ticks the same way.
      expect((await run(["stop", id])).code).toBe(0);
      const before = claims();
      await until(() => (claims() >= before + 2 ? true : undefined), 90_000);
      const after = onlyJournal(rig.home).lines;
      expect(ofType(after, "budget_stop")).toHaveLength(0);
      expect(ofType(after, "resumed").length).toBeGreaterThanOrEqual(1);
      expect(rig.model.requests).toHaveLength(1);
    } finally {
      await run(["schedule", "cancel", add.stdout.trim()]);
      await run(["stop", id]);
    }
  });
});
