// Checked before trusted (issue 21, item 3): in a learning session, a verdict that finds an edit improved,
// when its promotion would need a passing replay check that does not exist yet, starts that check in the
// background within a share of the session's budget; a share that cannot cover it skips it, saying why.
// Scripted model over HTTP, real kernels, real gates, the session host in this process.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Budget } from "../../../src/agent/budget/budget.js";
import type { AgentEvent } from "../../../src/agent/core/events.js";
import { prepareSession } from "../../../src/cli/setup.js";
import type { SessionSpec } from "../../../src/config/options.js";
import { SessionClient } from "../../../src/host/client.js";
import { SessionHost } from "../../../src/host/host.js";
import { HarnessStore, type Revision, scopeLocation, VerdictLog } from "../../../src/learning/store/index.js";
import { allowanceFor } from "../../../src/learning/verdicts/verify-runner.js";
import type { ScriptContext, ScriptStep } from "../../../src/scripted/index.js";
import { learningNotice } from "../../../src/session/learning-notice.js";
import { edits, eventNumbers, isRefine, quoteOf, systemOf } from "../../support/harness.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();
const GATE = "grep -q good out.txt";
const LESSON = "BUILD-LESSON: out.txt must say good.";
/** Learning on, but no pass of its own: the lesson comes from one /refine, so the test knows its revision. */
const QUIET_LEARNING = { learn: { every_turns: 0, at_compaction: false, on_gate_failure: false } };

/** Without the lesson out.txt takes three tries; with it, one. The refine model proposes the lesson. */
function script(): (ctx: ScriptContext) => ScriptStep {
  let tries = 0;
  return (ctx) => {
    if (isRefine(ctx)) {
      const [cell] = eventNumbers(ctx, "cell:");
      return edits([
        {
          op: "add",
          kind: "memory",
          content: LESSON,
          evidence: [cell],
          quote: quoteOf(ctx, cell),
          hypothesis: "the build gate passes at the first try",
        },
      ]);
    }
    if (ctx.rawBody.includes("You summarise the earlier part")) return { text: "## Goal\nFix the build." };
    const messages = (ctx.body as { messages: { role: string }[] }).messages;
    if (messages.at(-1)?.role === "tool") return { text: "written" };
    const system = systemOf(ctx.body);
    tries += 1;
    const content = system.includes(LESSON) || tries % 3 === 0 ? "good" : `wrong-${tries}`;
    return { code: `open('out.txt', 'w').write(${JSON.stringify(content)})` };
  };
}

type Line = { type: string; [k: string]: unknown };
const journalOf = (home: string, id: string): Line[] =>
  readFileSync(join(home, "sessions", id, "journal.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

/**
 * A learning session hosted here in autonomous mode: two tasks, a lesson from /refine, a compaction
 * that puts it in the prompt, two more tasks. The verdict after the fourth is `improved`.
 */
async function improvedSession(rig: Rig, flags: SessionSpec) {
  let host: SessionHost | undefined;
  const sink = (event: AgentEvent) => host?.onEvent(event);
  const { session } = await prepareSession("verify", flags, { env: rig.env, cwd: rig.cwd }, sink);
  host = new SessionHost({
    home: rig.home,
    session,
    title: "verify",
    cwd: rig.cwd,
    detached: false,
    autonomy: { gates: [GATE], unattended: true },
  });
  const h = host;
  await h.listen();
  const client = (await SessionClient.connect(rig.home, session.id)) as SessionClient;
  const turn = async (text: string) => {
    await client.call("send", { text });
    await until(async () => ((await client.call("info")).busy ? undefined : true), 60_000);
  };
  await turn("TASK: fix the build (1)");
  await turn("TASK: fix the build (2)");
  const proposed = await client.call("refine", { scope: "session" });
  expect(proposed.accepted).toBe(1);
  await client.call("refine.apply", { token: proposed.token });
  await client.call("compact", {});
  await turn("TASK: fix the build (3)");
  await turn("TASK: fix the build (4)");
  const store = new HarnessStore(
    scopeLocation("session", { cwd: rig.cwd, home: rig.home, sessionDir: session.dir }),
  );
  const [edit] = store.revisions() as [Revision];
  const verdict = journalOf(rig.home, session.id).find((e) => e.type === "harness_verdict");
  expect(verdict).toMatchObject({ rev: edit.rev, verdict: "improved" });
  return {
    id: session.id,
    edit,
    log: () => new VerdictLog(store.location, rig.home),
    journal: () => journalOf(rig.home, session.id),
    close: async () => {
      client.close();
      await h.finish();
    },
  };
}

describe("the background replay check", () => {
  it("an improved verdict on a lesson learnt in an autonomous run starts its verify; the record appears, the spend is the session's", async () => {
    const rig = await startRig("openai", { script: script() }, { config: QUIET_LEARNING });
    const s = await improvedSession(rig, { learn: true });
    const record = await until(() => s.log().latest(s.edit.rev, "verify"), 120_000);
    expect(record).toMatchObject({
      passed: true,
      session: s.id,
      model: "scripted",
      tasks: ["TASK: fix the build (1)", "TASK: fix the build (2)"],
      gates: [GATE],
      budget: { maxTurns: 30, maxTimeMs: 900_000 },
    });
    const checked = await until(() => s.journal().find((e) => e.type === "harness_verify"), 20_000);
    expect(checked).toMatchObject({ scope: "session", rev: s.edit.rev, outcome: "passed" });
    expect(checked.summary).toBe(record.summary);
    // The replays' model calls are this session's spend: one llm_call right before the result.
    const lines = s.journal();
    const at = lines.findIndex((e) => e.n === checked.n);
    const call = lines[at - 1] as Line & { prompts: number };
    expect(call).toMatchObject({ type: "llm_call", model: "scripted" });
    expect(call.prompts).toBe(record.with.turns + record.without.turns);
    expect(checked.tokens).toBe(record.with.tokens + record.without.tokens);
    expect(learningNotice(checked)?.text).toMatch(
      new RegExp(
        `^⚖ replay check of harness edit ${s.edit.rev} \\(session\\) passed: with ${s.edit.rev} gates passed in \\d+ turns`,
      ),
    );
    await s.close();
    // Checked once: the session's last judgement does not start it again.
    expect(s.journal().filter((e) => e.type === "harness_verify")).toHaveLength(1);
    expect(
      s
        .log()
        .records()
        .filter((r) => r.type === "verify"),
    ).toHaveLength(1);
  }, 240_000);

  it("a share of 0 skips it, journaling why, and no record is written", async () => {
    const rig = await startRig("openai", { script: script() }, { config: QUIET_LEARNING });
    const requests = () => rig.model.requests.length;
    const s = await improvedSession(rig, { learn: true, learnVerifyShare: "0" });
    const skipped = await until(() => s.journal().find((e) => e.type === "harness_verify"));
    expect(skipped).toMatchObject({
      rev: s.edit.rev,
      outcome: "skipped",
      summary: "the share of the budget for replay checks is 0 (--learn-verify-share (learn.verify_share))",
      tokens: 0,
    });
    expect(learningNotice(skipped)?.text).toBe(
      `⚖ replay check of harness edit ${s.edit.rev} (session) not run: the share of the budget for replay checks is 0 (--learn-verify-share (learn.verify_share))`,
    );
    const before = requests();
    await s.close();
    expect(requests()).toBe(before);
    expect(s.log().latest(s.edit.rev, "verify")).toBeUndefined();
  }, 240_000);

  it("without --learn no check is started", async () => {
    const rig = await startRig("openai", { script: script() }, { config: QUIET_LEARNING });
    const s = await improvedSession(rig, {});
    await s.close();
    expect(s.journal().filter((e) => e.type === "harness_verify")).toEqual([]);
    expect(s.log().latest(s.edit.rev, "verify")).toBeUndefined();
  }, 240_000);
});

describe("a replay check's share of the budget", () => {
  const task = { tokens: 1_000, cost: 0.01, elapsedMs: 10_000 };
  const spent = (limits: ConstructorParameters<typeof Budget>[0], tokens = 0, cost = 0) => {
    const budget = new Budget(limits);
    budget.addSpend(tokens, cost);
    return budget;
  };

  it("gives each replay half of the share of what is left, and verify's defaults without limits", () => {
    expect(allowanceFor(spent({}), 0.2, task)).toEqual({
      limits: { maxTurns: "30", maxTime: "15m" },
      note: "no session limit",
    });
    const a = allowanceFor(spent({ maxTokens: 100_000, maxCost: 1 }, 50_000, 0.5), 0.2, task);
    expect(a).toMatchObject({ limits: { maxTokens: "5000", maxTurns: "30" } });
    expect(Number((a as { limits: { maxCost: string } }).limits.maxCost)).toBeCloseTo(0.05);
  });

  it("skips, naming the limit, when the share cannot cover twice what the task took", () => {
    expect(allowanceFor(spent({ maxTokens: 10_000 }, 5_000), 0.2, task)).toEqual({
      skip: "a replay check needs about 2,000 tokens (twice the 1,000 its task took), more than the 1,000 that 0.2 of what is left of --max-tokens allows",
    });
    expect(allowanceFor(spent({ maxCost: 0.05 }), 0.2, task)).toMatchObject({
      skip: expect.stringContaining("of what is left of --max-cost allows"),
    });
    expect(allowanceFor(spent({ maxCost: 1 }), 0.2, { ...task, cost: null })).toMatchObject({
      skip: expect.stringContaining("cost is unknown"),
    });
    expect(allowanceFor(spent({ maxTimeMs: 60_000 }), 0.2, task)).toMatchObject({
      skip: expect.stringContaining("of what is left of --max-time allows"),
    });
  });
});
