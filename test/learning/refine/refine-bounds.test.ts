// Issue 21, item 4, in the refine machinery every pass uses: a reply applies at most MAX_PASS_EDITS
// edits (the first that pass the checks, in the reply's order), and relm reads at most 2,000 tokens of
// an answer even from a server that ignores the cap it was sent. Scripted model over real HTTP.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Budget } from "../../../src/agent/budget/budget.js";
import {
  applyRefinement,
  describeRefinement,
  MAX_PASS_EDITS,
  proposeForSession,
} from "../../../src/learning/refine/refine.js";
import { REFINE_ANSWER_TOKENS } from "../../../src/learning/refine/refine-call.js";
import { HarnessStore, scopeLocation } from "../../../src/learning/store/index.js";
import { type ScriptedModel, type ScriptItem, startScriptedModel } from "../../../src/scripted/index.js";
import { Journal } from "../../../src/session/index.js";
import type { JournalBody } from "../../../src/session/types.js";
import { clientFor } from "../../llm/helpers.js";
import { header, tempDir } from "../../session/helpers.js";
import { supportsAll } from "../../support/harness.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** `n` distinct memories, each citing the cell (event 2) by its words. */
function lessons(n: number, pad = 0) {
  return Array.from({ length: n }, (_, i) => ({
    op: "add",
    kind: "memory",
    content: `Lesson ${i + 1}: config ${i + 1} is a Python literal.${" ".repeat(pad)}`,
    evidence: [2],
    quote: "ast.literal_eval",
    hypothesis: `no JSONDecodeError on config ${i + 1}`,
  }));
}

async function session(script: ScriptItem[]) {
  model = await startScriptedModel({ script, before: supportsAll });
  const dir = join(tempDir(), "s1");
  const journal = Journal.create(dir, header());
  journal.append({ type: "user", text: "Read the config." });
  journal.append({ type: "cell", turn: 1, callId: "c1", code: "import ast\ncfg = ast.literal_eval(text)" });
  journal.close();
  const budget = new Budget({});
  const recorded: JournalBody[] = [];
  const ctx = { cwd: dir, home: dir, sessionDir: dir };
  const options = {
    journalPath: journal.path,
    ctx,
    scope: "session" as const,
    client: clientFor(model, "openai", true, { maxAttempts: 1 }),
  };
  const host = { budget, record: (b: JournalBody) => recorded.push(b), tree: { options: {} } };
  return {
    ctx,
    budget,
    recorded,
    refine: (maxOutputTokens?: number) =>
      proposeForSession(host, { ...options, ...(maxOutputTokens ? { maxOutputTokens } : {}) }),
  };
}

/** An OpenAI stream of `text` that pays no attention to max_tokens, as raw SSE frames. */
function streamIgnoringCap(text: string): ScriptItem {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", model: "scripted", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const pieces = [chunk({ role: "assistant", content: "" })];
  for (let i = 0; i < text.length; i += 200) pieces.push(chunk({ content: text.slice(i, i + 200) }));
  pieces.push(chunk({}, "stop"), "data: [DONE]\n\n");
  return { raw: pieces };
}

describe("a refinement's bounds", () => {
  it("a reply of 30 edits applies the first 5 in its order and reports the other 25 as over the cap", async () => {
    const s = await session([{ text: JSON.stringify(lessons(30)) }]);
    const ref = await s.refine();
    expect(ref.error).toBeUndefined();
    expect(ref.accepted.map((a) => a.index)).toEqual([0, 1, 2, 3, 4]);
    expect(ref.rejected).toHaveLength(25);
    expect(
      ref.rejected.every((r) => r.reason === `skipped: over the per-pass cap of ${MAX_PASS_EDITS}`),
    ).toBe(true);
    expect(describeRefinement(ref)).toContain(
      "skipped 25 more edit(s) (edits 6–30): over the per-pass cap of 5",
    );
    const { revision } = applyRefinement(ref, s.ctx);
    expect(revision?.edits.map((e) => e.after?.content.slice(0, 9))).toEqual([
      "Lesson 1:",
      "Lesson 2:",
      "Lesson 3:",
      "Lesson 4:",
      "Lesson 5:",
    ]);
    expect(new HarnessStore(scopeLocation("session", s.ctx)).entries()).toHaveLength(5);
  });

  it("edits rejected by the checks do not count: the first 5 that pass are applied", async () => {
    const list = lessons(8);
    list[1] = { ...list[1], evidence: [999] } as (typeof list)[number];
    list[3] = { ...list[3], quote: "words nowhere in the event" } as (typeof list)[number];
    const s = await session([{ text: JSON.stringify(list) }]);
    const ref = await s.refine();
    expect(ref.accepted.map((a) => a.index)).toEqual([0, 2, 4, 5, 6]);
    expect(ref.rejected.map((r) => [r.index, r.capped ?? false])).toEqual([
      [1, false],
      [3, false],
      [7, true],
    ]);
  });

  it("stops reading an endless answer at 2,000 tokens, books its estimated spend and applies nothing", async () => {
    const s = await session([{ endless: true, text: "and on and on " }]);
    const ref = await s.refine(REFINE_ANSWER_TOKENS);
    expect(ref.error).toBe(
      "the refine model's answer passed the 2,000-token cap before its first edit was complete, so relm stopped reading it",
    );
    expect(ref.accepted).toEqual([]);
    // Read until the estimate passed the cap: one delta (14 characters) past it at most.
    expect(ref.usage?.outputTokens).toBeGreaterThan(REFINE_ANSWER_TOKENS);
    expect(ref.usage?.outputTokens).toBeLessThanOrEqual(REFINE_ANSWER_TOKENS + 4);
    expect(ref.usage?.estimated).toBe(true);
    expect(s.budget.spent().tokens).toBeGreaterThan(REFINE_ANSWER_TOKENS);
    expect(s.recorded).toEqual([expect.objectContaining({ type: "llm_call" })]);
  });

  it("a long answer from a server that ignores max_tokens is read up to the cap: the edits complete by then are considered", async () => {
    const list = lessons(40, 300);
    const text = JSON.stringify(list);
    expect(text.length / 4).toBeGreaterThan(2 * REFINE_ANSWER_TOKENS);
    const s = await session([streamIgnoringCap(text)]);
    const ref = await s.refine(REFINE_ANSWER_TOKENS);
    // The refine request (a relevance check follows it).
    const sent = (model?.requests[0]?.body as { max_tokens?: number } | undefined)?.max_tokens;
    expect(sent).toBe(REFINE_ANSWER_TOKENS);
    expect(ref.error).toBeUndefined();
    // What fits in 8,000 characters: whole edits only, the one cut in the middle is not guessed at.
    const complete = Math.floor((REFINE_ANSWER_TOKENS * 4) / (JSON.stringify(list[0]).length + 1));
    expect(ref.cut).toBe(
      `the answer passed the 2,000-token cap, so relm stopped reading it: the ${complete} complete edit(s) before that were considered, the rest was not read`,
    );
    expect(ref.accepted).toHaveLength(MAX_PASS_EDITS);
    expect(ref.rejected).toHaveLength(complete - MAX_PASS_EDITS);
    // The refine call's own spend (the relevance check that follows is journaled as a second call).
    const calls = s.recorded.filter((b) => b.type === "llm_call") as { usage?: { outputTokens?: number } }[];
    expect(calls[0]?.usage?.outputTokens).toBeLessThanOrEqual(REFINE_ANSWER_TOKENS + 50);
  });
});
