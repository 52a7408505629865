// Learning is visible (issue 21, item 5): a pass that applies, applies nothing or is skipped, and a
// verdict, each say so in one line wherever the user looks. Scripted model over HTTP, real kernels.
import { describe, expect, it } from "vitest";
import { UpdateMapper } from "../../../src/acp/updates.js";
import type { AgentEvent } from "../../../src/agent/core/events.js";
import type { ScriptContext, ScriptStep } from "../../../src/scripted/index.js";
import { runRelm } from "../../support/cli.js";
import {
  edits,
  eventNumbers,
  isRefine,
  isRelevanceCheck,
  lessonOnce,
  quoteOf,
} from "../../support/harness.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const LESSON = "COUNT-LESSON: the counter starts at one.";

/** Six cells, then an answer; the refine model proposes one memory the first time, nothing after. */
function counting() {
  let step = 0;
  const lesson = lessonOnce(LESSON, "the count is right the first time");
  return (ctx: ScriptContext): ScriptStep => {
    if (isRefine(ctx)) return lesson(ctx);
    return ++step <= 6 ? { code: `print(${step})` } : { text: "counted" };
  };
}

describe("learning notices", () => {
  it("line mode prints one line per pass: what it learned, from which events, and a pass with nothing to add", async () => {
    const rig = await startRig(
      "openai",
      { script: counting() },
      { config: { learn: { every_turns: 2, at_compaction: false } } },
    );
    const input = "/learn on\nTASK: count\n/exit\n";
    const result = await runRelm([], { env: rig.env, cwd: rig.cwd, input });
    expect(result.code, result.stderr).toBe(0);
    const passes = onlyJournal(rig.home).lines.filter((l) => l.type === "learn");
    expect(passes.map((p) => p.outcome)).toEqual(["applied", "nothing_applied", "nothing_applied"]);
    const applied = passes[0] as JournalLine & { applied: { evidence: number[] }[]; revision: string };
    const from = applied.applied[0]?.evidence[0];
    const out = result.stdout.split("\n");
    expect(out).toContain(
      `✎ learned 1 lesson from event ${from} (every turns, revision ${applied.revision}): ${LESSON} — in force from the next request`,
    );
    expect(out.filter((l) => l === "✎ learning pass 2 (every turns): no lesson proposed")).toHaveLength(1);
  });

  it("a lesson whose quote does not support it is not applied, a failed relevance check skips the pass, and each says why", async () => {
    // The refine model proposes the lesson every pass; its relevance check says no, then fails, then yes.
    let checks = 0;
    const relevance = (ctx: ScriptContext): ScriptStep | undefined => {
      if (!isRelevanceCheck(ctx)) return undefined;
      checks += 1;
      if (checks === 2) return { status: 400 };
      const supports = checks === 1 ? "no" : "yes";
      return {
        text: JSON.stringify([{ edit: 1, supports, why: "the cell prints a number, not a counter rule" }]),
      };
    };
    let step = 0;
    const script = (ctx: ScriptContext): ScriptStep => {
      if (!isRefine(ctx)) return ++step <= 6 ? { code: `print(${step})` } : { text: "counted" };
      const [cell] = eventNumbers(ctx, "cell:");
      const lesson = {
        op: "add",
        kind: "memory",
        content: LESSON,
        evidence: [cell],
        quote: quoteOf(ctx, cell),
      };
      return edits([{ ...lesson, hypothesis: "the count is right the first time" }]);
    };
    const rig = await startRig(
      "openai",
      { script, before: relevance },
      { config: { learn: { every_turns: 2, at_compaction: false } } },
    );
    const result = await runRelm([], {
      env: rig.env,
      cwd: rig.cwd,
      input: "/learn on\nTASK: count\n/exit\n",
    });
    expect(result.code, result.stderr).toBe(0);
    const passes = onlyJournal(rig.home).lines.filter((l) => l.type === "learn");
    expect(passes.map((p) => p.outcome)).toEqual(["nothing_applied", "skipped", "applied"]);
    expect(passes[0]?.rejected).toEqual([
      expect.objectContaining({
        reason:
          "its quote does not support it (relevance check: the cell prints a number, not a counter rule)",
      }),
    ]);
    expect(passes[1]?.reason).toMatch(/^relevance check failed: the refine model failed: /);
    // Each answered call is journaled and in its pass's spend; the refused check (HTTP 400) cost nothing.
    const lines = onlyJournal(rig.home).lines;
    expect(lines.filter((l) => l.type === "llm_call")).toHaveLength(5);
    const spent = (from: number, to: number) =>
      lines
        .filter((l) => l.type === "llm_call" && (l.n as number) > from && (l.n as number) < to)
        .reduce(
          (n, l) =>
            n +
            (l.usage as { inputTokens: number }).inputTokens +
            (l.usage as { outputTokens: number }).outputTokens,
          0,
        );
    expect(passes[0]?.tokens).toBe(spent(0, passes[0]?.n as number));
    expect(passes[2]?.tokens).toBe(spent(passes[1]?.n as number, passes[2]?.n as number));
    const out = result.stdout.split("\n");
    expect(out.find((l) => l.startsWith("✎ learning pass 1 "))).toMatch(
      /^✎ learning pass 1 \(every turns\): nothing applied, 1 proposed, none passed the checks \(its quote does not support it \(relevance check: the cell prints/,
    );
    expect(out.find((l) => l.startsWith("✎ learning pass 2 (every turns) skipped: "))).toMatch(
      /skipped: relevance check failed: the refine model failed: /,
    );
    expect(out.filter((l) => l.startsWith("✎ learned 1 lesson"))).toHaveLength(1);
  });

  it("ACP shows the journal's learning events as message text, one line each", () => {
    const at = (n: number, body: Record<string, unknown>) =>
      ({ ...body, n, t: "2025-01-01T00:00:00.000Z" }) as unknown as AgentEvent;
    const m = new UpdateMapper("/nonexistent");
    const text = (updates: unknown[]) =>
      (updates as { sessionUpdate: string; content: { text: string } }[]).map((u) => [
        u.sessionUpdate,
        u.content.text.trim(),
      ]);
    const pass = {
      type: "learn",
      pass: 1,
      trigger: "gate_failure",
      model: "scripted",
      scope: "session",
      reviewed: { from: 1, to: 20, omitted: 0 },
      proposed: 1,
      tokens: 10,
      cost: 0,
      durationMs: 5,
      rejected: [],
    };
    expect(
      text(
        m.map(
          at(21, {
            ...pass,
            outcome: "applied",
            revision: "r1234567",
            applied: [
              {
                op: "add",
                id: "mem-abc123",
                kind: "memory",
                content: LESSON,
                hypothesis: "h",
                evidence: [9, 14],
              },
            ],
          }),
        ),
      ),
    ).toEqual([
      [
        "agent_message_chunk",
        `✎ learned 1 lesson from events 9–14 (gate failure, revision r1234567): ${LESSON} — in force from the next request`,
      ],
    ]);
    expect(
      text(
        m.map(
          at(30, {
            ...pass,
            pass: 2,
            outcome: "skipped",
            reason: "learning's budget: the cap is 500",
            applied: [],
          }),
        ),
      ),
    ).toEqual([
      ["agent_message_chunk", "✎ learning pass 2 (gate failure) skipped: learning's budget: the cap is 500"],
    ]);
    expect(
      text(
        m.map(
          at(40, {
            type: "harness_verdict",
            scope: "session",
            rev: "r1234567",
            verdict: "regressed",
            final: true,
            summary: "worse",
            reverted: "r7654321",
          }),
        ),
      ),
    ).toEqual([
      ["agent_message_chunk", "⚖ harness edit r1234567 (session) regressed — reverted as r7654321"],
    ]);
    expect(text(m.map(at(1, { type: "harness_probation", entries: ["mem-abc123", "mem-def456"] })))).toEqual([
      [
        "agent_message_chunk",
        "✎ starting with 2 lessons on probation from earlier sessions — relm harness list --scope probation",
      ],
    ]);
    const probation = {
      type: "harness_verdict",
      scope: "probation",
      rev: "r1234567",
      final: false,
      summary: "better",
      entries: ["mem-abc123"],
    };
    expect(
      text([
        ...m.map(at(50, { ...probation, verdict: "improved", promoted: "r2222222" })),
        ...m.map(
          at(51, { ...probation, verdict: "neutral", final: true, reverted: "r3333333", retired: true }),
        ),
        ...m.map(
          at(52, { ...probation, verdict: "improved", waiting: "needs a passing replay check first" }),
        ),
      ]),
    ).toEqual([
      [
        "agent_message_chunk",
        "⚖ lesson mem-abc123 on probation (revision r1234567) improved — promoted to the project scope as r2222222",
      ],
      [
        "agent_message_chunk",
        "⚖ lesson mem-abc123 on probation (revision r1234567) not shown to help — retired as r3333333",
      ],
      [
        "agent_message_chunk",
        "⚖ lesson mem-abc123 on probation (revision r1234567) improved so far — stays on probation: needs a passing replay check first",
      ],
    ]);
  });
});
