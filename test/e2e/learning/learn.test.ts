// Learning on the fly (issue 14, part 1): `relm run --learn` with a scripted model over HTTP, real
// kernels and real gate commands; the refine model's answers are scripted too.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HarnessStore, scopeLocation } from "../../../src/learning/store/index.js";
import type { ScriptContext, ScriptStep } from "../../../src/scripted/index.js";
import { pythonsOf, runRelm } from "../../support/cli.js";
import { edits, eventNumbers, isRefine, quoteOf, systemOf } from "../../support/harness.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

const MEMORY = "LESSON-GATE-7: config.parse does not exist; the parser is config.fastparse";
const FAILURE = "E   ImportError: cannot import name 'parse' from 'config'";
/** Fails the same way until fixed.txt exists. */
const GATE = `test -f fixed.txt || { echo "${FAILURE}"; exit 1; }`;
const isSummary = (ctx: Pick<ScriptContext, "rawBody">) =>
  ctx.rawBody.includes("You summarise the earlier part");
const agentRequests = (rig: Rig) => rig.model.requests.filter((r) => !isRefine(r) && !isSummary(r));

/**
 * The agent: "done" twice without fixing anything (two identical gate failures), then outputs that fill
 * the small context window (a compaction), then the fix. Steps go by call count.
 */
function agentScript(): (ctx: ScriptContext) => ScriptStep {
  const steps: ScriptStep[] = [
    { code: "print('looking at config')" },
    { text: "Done, I think." },
    { code: "print('trying again')" },
    { text: "Done now." },
    ...Array.from({ length: 5 }, (_, i) => ({ code: `print('z' * 2000, ${i})` })),
    { code: "open('fixed.txt', 'w').write('ok')\nprint('fixed')" },
    { text: "Fixed: the gate passes." },
  ];
  let step = 0;
  return () => steps[step++] ?? { text: "nothing left to do" };
}

function scripted(
  refine: (ctx: ScriptContext) => ScriptStep,
  agent: (ctx: ScriptContext) => ScriptStep = agentScript(),
) {
  return async (ctx: ScriptContext): Promise<ScriptStep> => {
    if (isRefine(ctx)) return refine(ctx);
    if (isSummary(ctx))
      return { text: "## Goal\nTASK: fix the import\n## Progress so far\nGate fails on ImportError." };
    return agent(ctx);
  };
}

/** The refine model: a memory citing the two failed gate runs, then nothing more to add. */
function lessonOnce(seen: string[]) {
  return (ctx: ScriptContext): ScriptStep => {
    seen.push(ctx.lastUserText ?? "");
    const gates = eventNumbers(ctx, "gates failed");
    if (seen.length > 1 || gates.length < 2) return edits([]);
    return edits([
      {
        op: "add",
        kind: "memory",
        content: MEMORY,
        evidence: gates,
        quote: quoteOf(ctx, gates[0]),
        reason: "the same ImportError twice",
        hypothesis: "the gate stops failing on ImportError",
      },
    ]);
  };
}

/** Six cells, then an answer: seven model calls in one turn. */
function counting(): (ctx: ScriptContext) => ScriptStep {
  let step = 0;
  return () => (++step <= 6 ? { code: `print(${step})` } : { text: "counted" });
}

const ofType = (lines: JournalLine[], type: string) => lines.filter((l) => l.type === type);

describe("relm run --learn", () => {
  it("after the second identical gate failure a pass applies a memory; the next rebuilt prompt has it; requests between rebuilds extend each other byte for byte", async () => {
    const seen: string[] = [];
    const rig = await startRig(
      "openai",
      { script: scripted(lessonOnce(seen)) },
      { config: { contextWindows: { scripted: 4400 } } }, // one compaction in this run: a smaller window makes two
    );
    const result = await runRelm(
      ["run", "--learn", "--gate", GATE, "--max-gate-failures", "5", "TASK: fix the import"],
      { env: rig.env, cwd: rig.cwd },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/gates passed/);
    const { lines, dir } = onlyJournal(rig.home);

    // The pass came right after the second failed gate run, and said why it ran.
    const gateRuns = ofType(lines, "gate_run");
    expect(gateRuns.map((g) => g.passed)).toEqual([false, false, true]);
    const [learnt, ...later] = ofType(lines, "learn");
    expect(learnt).toMatchObject({
      trigger: "gate_failure",
      outcome: "applied",
      scope: "session",
      model: "scripted",
      proposed: 1,
      rejected: [],
      applied: [
        {
          op: "add",
          kind: "memory",
          content: MEMORY,
          hypothesis: "the gate stops failing on ImportError",
          evidence: [gateRuns[0]?.n, gateRuns[1]?.n],
        },
      ],
    });
    expect(learnt?.n).toBeGreaterThan(gateRuns[1]?.n as number);
    expect(learnt?.n).toBeLessThan(gateRuns[2]?.n as number);
    expect(learnt?.reviewed).toMatchObject({ from: 1 });
    expect((learnt?.tokens as number) > 0).toBe(true);
    expect(seen[0]).toContain("failed 2 times in a row with the same failure");
    expect(seen[0]).toContain(FAILURE);
    // Its model call is journaled as an llm_call just before it, as /refine's is.
    const call = lines.find((l) => l.n === (learnt?.n as number) - 1);
    expect(call).toMatchObject({ type: "llm_call", model: "scripted", prompts: 1 });

    // In the session scope, with the hypothesis, written by learning.
    const session = new HarnessStore(
      scopeLocation("session", { cwd: rig.cwd, home: rig.home, sessionDir: dir }),
    );
    const revision = session.revisions().at(-1);
    expect(revision).toMatchObject({ author: "learn scripted", rev: learnt?.revision });
    expect(revision?.edits[0]).toMatchObject({ hypothesis: "the gate stops failing on ImportError" });

    // The compaction came after the pass, and a pass at compaction reviewed only what followed the first.
    const compaction = ofType(lines, "compaction")[0];
    expect(compaction?.n).toBeGreaterThan(learnt?.n as number);
    expect(later[0]).toMatchObject({ trigger: "compaction", outcome: "nothing_applied" });
    const reviewedFrom = (later[0]?.reviewed as { from: number } | undefined)?.from;
    const firstTo = (learnt?.reviewed as { to: number } | undefined)?.to as number;
    expect(reviewedFrom).toBeGreaterThan(firstTo);
    const prompts = ofType(lines, "system_prompt");
    expect(prompts).toHaveLength(2);
    expect(prompts[0]?.text).not.toContain(MEMORY);
    expect(prompts[1]?.text).toContain(MEMORY);

    // Requests: the memory appears exactly from the first request after the compaction.
    const requests = agentRequests(rig);
    const summaryAt = rig.model.requests.findIndex((r) => isSummary(r));
    const firstAfter = requests.findIndex((r) => rig.model.requests.indexOf(r) > summaryAt);
    expect(firstAfter).toBeGreaterThan(3);
    requests.forEach((r, i) => {
      expect(systemOf(r.body).includes(MEMORY), `request ${i}`).toBe(i >= firstAfter);
    });
    // Between rebuilds every request is the previous one extended (its closing "]}" aside).
    const bodies = requests.map((r) => r.rawBody);
    const extends_ = (i: number) => (bodies[i] ?? "").startsWith((bodies[i - 1] ?? "").slice(0, -2));
    for (let i = 1; i < bodies.length; i++) expect(extends_(i), `request ${i}`).toBe(i !== firstAfter);
    expect(bodies.length).toBeGreaterThan(firstAfter + 1);
  });

  it("never runs a pass the budgets would not cover: the skip and its reason are journaled, no refine request is sent", async () => {
    // The session's --max-cost cannot be kept with a refine model whose price is unknown.
    const priced = await startRig(
      "openai",
      { script: scripted(() => edits([])) },
      {
        config: {
          prices: { scripted: { input: 1, output: 1 } },
          learn: { model: "unpriced-refiner", at_compaction: false },
        },
      },
    );
    const run = await runRelm(
      [
        "run",
        "--learn",
        "--max-cost",
        "5",
        "--gate",
        GATE,
        "--max-gate-failures",
        "5",
        "TASK: fix the import",
      ],
      { env: priced.env, cwd: priced.cwd },
    );
    expect(run.code, run.stderr).toBe(0);
    // Said where the user looks, with the reason.
    expect(run.stderr).toContain(
      "✎ learning pass 1 (gate failure) skipped: the refine model's price is unknown, so --max-cost could not be kept",
    );
    const skipped = ofType(onlyJournal(priced.home).lines, "learn");
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({
      trigger: "gate_failure",
      outcome: "skipped",
      reason: "the refine model's price is unknown, so --max-cost could not be kept",
      model: "unpriced-refiner",
      reviewed: null,
      tokens: 0,
      estimate: { cost: null },
    });
    expect(priced.model.requests.filter((r) => isRefine(r))).toEqual([]);

    // Learning's own cap (learn.budget), in a detached run: --learn reaches the background host.
    const capped = await startRig(
      "openai",
      { script: scripted(() => edits([])) },
      { config: { learn: { budget: { tokens: 500 }, at_compaction: false } } },
    );
    const started = await runRelm(
      ["run", "--detach", "--learn", "--gate", GATE, "--max-gate-failures", "5", "TASK: fix the import"],
      { env: capped.env, cwd: capped.cwd },
    );
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    const journal = join(capped.home, "sessions", id, "journal.jsonl");
    const lines = await until(() => {
      const read = readFileSync(journal, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as JournalLine);
      return read.some((l) => l.type === "autonomy_end") ? read : undefined;
    }, 60_000);
    expect(lines.find((l) => l.type === "learn_mode")).toMatchObject({ on: true });
    const pass = ofType(lines, "learn");
    expect(pass).toHaveLength(1);
    expect(pass[0]).toMatchObject({ outcome: "skipped", tokens: 0 });
    expect(pass[0]?.reason).toMatch(
      /^learning's budget: 0 tokens spent, the pass needs up to \d+, the cap is 500/,
    );
    expect(capped.model.requests.filter((r) => isRefine(r))).toEqual([]);
    await runRelm(["stop", id], { env: capped.env });
    await until(() => (pythonsOf(capped.home).length === 0 ? true : undefined), 20_000);
  });

  it("learning's cap covers the relevance check too: a cap the proposal fits but not both calls holds the lesson back", async () => {
    const run = async (budget?: number) => {
      const rig = await startRig(
        "openai",
        { script: scripted(lessonOnce([])) },
        { config: { learn: { at_compaction: false, ...(budget ? { budget: { tokens: budget } } : {}) } } },
      );
      const result = await runRelm(
        ["run", "--learn", "--gate", GATE, "--max-gate-failures", "5", "TASK: fix the import"],
        { env: rig.env, cwd: rig.cwd },
      );
      expect(result.code, result.stderr).toBe(0);
      return { rig, pass: ofType(onlyJournal(rig.home).lines, "learn")[0] };
    };
    // Uncapped: the pass's estimate is both calls' (proposal and relevance check), and bounds its spend.
    const free = await run();
    expect(free.pass).toMatchObject({ outcome: "applied" });
    expect(free.rig.model.requests.filter((r) => isRefine(r))).toHaveLength(2);
    const estimate = (free.pass?.estimate as { tokens: number } | undefined)?.tokens ?? 0;
    expect(estimate).toBeGreaterThanOrEqual(free.pass?.tokens as number);
    // One token short of both: the proposal is sent, the check is not, and nothing unchecked is applied.
    const capped = await run(estimate - 1);
    expect(capped.pass).toMatchObject({ outcome: "skipped", applied: [] });
    expect(capped.pass?.reason).toMatch(
      /^relevance check not asked: learning's budget: 0 tokens spent, the pass needs up to \d+, the cap is \d+ \(learn.budget\)$/,
    );
    expect(capped.rig.model.requests.filter((r) => isRefine(r))).toHaveLength(1);
  });

  it("a pass's spend is in relm agents --json (tokens and cost) with every other call of the session", async () => {
    const rig = await startRig(
      "openai",
      { script: scripted(lessonOnce([])) },
      { config: { prices: { scripted: { input: 2, output: 4 } }, learn: { at_compaction: false } } },
    );
    const run = await runRelm(
      ["run", "--learn", "--gate", GATE, "--max-gate-failures", "5", "TASK: fix the import"],
      {
        env: rig.env,
        cwd: rig.cwd,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const { lines } = onlyJournal(rig.home);
    const pass = ofType(lines, "learn")[0];
    expect(pass).toMatchObject({ outcome: "applied" });
    let tokens = 0;
    let cost = 0;
    for (const l of lines) {
      if (!["model_response", "llm_call", "compaction"].includes(l.type) || !l.usage) continue;
      const u = l.usage as { inputTokens: number; outputTokens: number };
      tokens += u.inputTokens + u.outputTokens;
      cost += l.cost as number;
    }
    const listed = await runRelm(["agents", "--json"], { env: rig.env });
    const state = JSON.parse(listed.stdout.trim()) as { tokens: number; cost: number };
    expect(state.tokens).toBe(tokens);
    expect(state.cost).toBeCloseTo(cost, 9);
    // The pass is in there: without it the totals would be smaller by exactly its figures.
    expect(pass?.tokens as number).toBeGreaterThan(0);
    expect(state.tokens - (pass?.tokens as number)).toBe(
      ofType(lines, "model_response").reduce((sum, l) => {
        const u = l.usage as { inputTokens: number; outputTokens: number };
        return sum + u.inputTokens + u.outputTokens;
      }, 0),
    );
  });

  it("every_turns: a pass every N model calls, each reviewing only what followed the one before", async () => {
    const rig = await startRig(
      "openai",
      { script: scripted(() => edits([]), counting()) },
      { config: { learn: { every_turns: 2, at_compaction: false } } },
    );
    const run = await runRelm(["run", "--learn", "TASK: count"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    const { lines } = onlyJournal(rig.home);
    const passes = ofType(lines, "learn");
    // Seven model calls: passes before calls 3, 5 and 7.
    expect(ofType(lines, "model_request")).toHaveLength(7);
    expect(passes.map((p) => [p.trigger, p.outcome])).toEqual([
      ["every_turns", "nothing_applied"],
      ["every_turns", "nothing_applied"],
      ["every_turns", "nothing_applied"],
    ]);
    const turnAfter = (n: number) =>
      lines.find((l) => l.type === "model_request" && (l.n as number) > n)?.turn;
    expect(passes.map((p) => turnAfter(p.n as number))).toEqual([3, 5, 7]);
    const windows = passes.map((p) => p.reviewed as { from: number; to: number });
    for (let i = 1; i < windows.length; i++)
      expect(windows[i]?.from).toBeGreaterThan(windows[i - 1]?.to as number);
    expect(rig.model.requests.filter((r) => isRefine(r))).toHaveLength(3);
  });

  it("/learn in line mode: off by default, on before the first message, status with the passes' spend", async () => {
    const rig = await startRig("openai", { script: scripted(() => edits([])) });
    const input = "/learn\n/learn on\nTASK: fix the import\n/learn status\n/learn off\n/learn\n/exit\n";
    const result = await runRelm([], { env: rig.env, cwd: rig.cwd, input });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("learning: off (from the first message)");
    expect(result.stdout).toContain("learning: on (from the first message)");
    expect(result.stdout).toMatch(
      /learning: on — every 25 model calls, at compaction, after 2 identical gate failures; .*\(0 pass\(es\), 0 edit\(s\) applied, 0 tokens, unpriced\)/,
    );
    expect(result.stdout).toMatch(/learning: off \(0 pass\(es\)/);
    const modes = ofType(onlyJournal(rig.home).lines, "learn_mode").map((l) => l.on);
    expect(modes).toEqual([true, false]);
  });

  it("/learn status words the passes' cost as every view does: $0.00 for nothing spent with a priced model", async () => {
    const rig = await startRig(
      "openai",
      { script: scripted(() => edits([])) },
      { config: { prices: { scripted: { input: 1, output: 1 } } } },
    );
    const input = "TASK: fix the import\n/learn status\n/exit\n";
    const result = await runRelm(["--learn"], { env: rig.env, cwd: rig.cwd, input });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\(0 pass\(es\), 0 edit\(s\) applied, 0 tokens, \$0\.00\)/);
    expect(result.stdout).not.toContain("$0.0000");
  });
});
