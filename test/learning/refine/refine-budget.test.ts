// A refinement inside a session (/refine, harness.refine(), learning passes) is admitted by the session's
// budgets like every other model call: its answer capped by what is left of --max-tokens, refused before
// sending when the prompt cannot be covered, stopped at --max-time, its spend booked before the tokens it
// held are given back. Scripted model over real HTTP, a real journal.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Budget } from "../../../src/agent/budget/budget.js";
import { proposeForSession } from "../../../src/learning/refine/refine.js";
import { type ScriptedModel, type ScriptItem, startScriptedModel } from "../../../src/scripted/index.js";
import { Journal } from "../../../src/session/index.js";
import type { JournalBody } from "../../../src/session/types.js";
import { clientFor } from "../../llm/helpers.js";
import { header, tempDir } from "../../session/helpers.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const LESSON = [
  {
    op: "add",
    kind: "memory",
    content: "The config file is a Python literal.",
    evidence: [2],
    quote: "ast.literal_eval",
    hypothesis: "no JSONDecodeError again",
  },
];

/** A session with a little work to review, its budget, and what it journals. */
async function session(script: ScriptItem[], limits: ConstructorParameters<typeof Budget>[0]) {
  model = await startScriptedModel({ script });
  const dir = join(tempDir(), "s1");
  const journal = Journal.create(dir, header());
  journal.append({ type: "user", text: "Read the config." });
  journal.append({ type: "cell", turn: 1, callId: "c1", code: "import ast\ncfg = ast.literal_eval(text)" });
  journal.close();
  const budget = new Budget(limits);
  const recorded: JournalBody[] = [];
  const host = { budget, record: (b: JournalBody) => recorded.push(b), tree: { options: {} } };
  const options = {
    journalPath: journal.path,
    ctx: { cwd: dir, home: dir, sessionDir: dir },
    scope: "session" as const,
    client: clientFor(model, "openai", true, { maxAttempts: 1 }),
  };
  return { budget, recorded, refine: () => proposeForSession(host, options) };
}

const capOf = (m: ScriptedModel, at = -1) =>
  (m.requests.at(at)?.body as { max_tokens?: number } | undefined)?.max_tokens;

/** The relevance check's answer: the one edit's quote supports it. */
const SUPPORTED = { text: JSON.stringify([{ edit: 1, supports: "yes", why: "it shows literal_eval" }]) };

describe("a refinement under the session's budgets", () => {
  it("caps its answer by what is left of --max-tokens and books the spend before giving the tokens back", async () => {
    const s = await session([{ text: JSON.stringify(LESSON) }, SUPPORTED], { maxTokens: 4_000 });
    const ref = await s.refine();
    expect(ref.error).toBeUndefined();
    expect(ref.accepted).toHaveLength(1);
    const cap = capOf(model as ScriptedModel, 0);
    expect(cap).toBeGreaterThan(0);
    expect(cap).toBeLessThan(4_000);
    const spent = s.budget.spent().tokens;
    expect(spent).toBe((ref.usage?.inputTokens ?? 0) + (ref.usage?.outputTokens ?? 0));
    expect(spent).toBeGreaterThan(0);
    // Nothing is held any more: what is left counts only what was spent.
    expect(s.budget.tokensLeft(true)).toBe(4_000 - spent);
    // The proposal and its relevance check (refine-relevance.ts): both admitted, both booked.
    expect(s.recorded).toEqual([
      expect.objectContaining({ type: "llm_call", prompts: 1 }),
      expect.objectContaining({ type: "llm_call", prompts: 1 }),
    ]);
  });

  it("is not sent when what is left cannot cover its prompt and a minimal answer", async () => {
    const s = await session([{ text: JSON.stringify(LESSON) }], { maxTokens: 100 });
    const ref = await s.refine();
    expect(ref.skipped).toMatch(/--max-tokens/);
    expect(model?.requests).toHaveLength(0);
    expect(s.recorded).toEqual([]);
  });

  it("reports an answer cut off at the budget's cap as such, and still counts it", async () => {
    const long = JSON.stringify([{ ...LESSON[0], reason: "x".repeat(20_000) }]);
    // Under relm's own cap on a refine answer (REFINE_ANSWER_TOKENS), so the budget's cap is the one hit.
    const s = await session([{ text: long }], { maxTokens: 1_500 });
    const ref = await s.refine();
    expect(ref.error).toMatch(/cut off at what was left of --max-tokens \(\d+ tokens\)/);
    expect(ref.accepted).toEqual([]);
    expect(s.budget.spent().tokens).toBeGreaterThan(0);
    expect(s.recorded).toHaveLength(1);
  });

  it("is stopped at the --max-time deadline instead of waiting for a hanging model", async () => {
    const s = await session([{ text: JSON.stringify(LESSON), delayMs: 60_000 }], { maxTimeMs: 1_000 });
    const ref = await s.refine();
    expect(ref.error).toMatch(/stopped by the time budget, --max-time/);
    expect(ref.accepted).toEqual([]);
    expect(s.recorded).toEqual([]);
  }, 20_000);

  it("is refused before sending once the deadline has passed", async () => {
    const s = await session([{ text: JSON.stringify(LESSON) }], { maxTimeMs: 0 });
    const ref = await s.refine();
    expect(ref.skipped).toMatch(/--max-time/);
    expect(model?.requests).toHaveLength(0);
  });
});
