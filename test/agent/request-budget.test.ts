// The arithmetic of hard budgets, in process: deadlines over a budget tree, tokens left with requests in
// flight, admission of a request (its answer capped, refused when the prompt cannot be covered, waiting
// for a sibling's reservation), the deadline signal and a cell's limit.

import { describe, expect, it } from "vitest";
import { Budget } from "../../src/agent/budget/budget.js";
import { cellLimit, DEADLINE_GRACE_MS, Deadline } from "../../src/agent/budget/deadline.js";
import { admit, MIN_ANSWER_TOKENS } from "../../src/agent/budget/request-budget.js";
import { createModelClient } from "../../src/llm/index.js";
import type { ModelClient, ModelRequest } from "../../src/llm/types.js";
import { until } from "../support/wait.js";

/** A clock the test moves by hand. */
function clock(start = 1_000_000): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

/** A client that is never asked anything here: admission only measures requests. */
function offlineClient(
  model = "scripted",
  provider: "openai" | "anthropic" = "openai",
  price?: { input: number; output: number; cacheWrite?: number },
): ModelClient {
  return createModelClient({ provider, baseUrl: "http://127.0.0.1:9", model, ...(price ? { price } : {}) });
}

function ask(text: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: "Be brief.",
    messages: [{ role: "user", content: [{ type: "text", text }] }],
    tools: [],
    ...extra,
  };
}

describe("deadlines over a budget tree", () => {
  it("is the earliest --max-time here or above", () => {
    const c = clock();
    const root = new Budget({ maxTimeMs: 10_000 }, undefined, c.now);
    c.advance(4_000);
    const child = root.child({ maxTimeMs: 8_000 });
    const free = root.child();
    expect(root.deadline()).toBe(1_010_000);
    expect(child.deadline()).toBe(1_010_000);
    expect(free.timeLeftMs()).toBe(6_000);
    const tight = root.child({ maxTimeMs: 1_000 });
    expect(tight.timeLeftMs()).toBe(1_000);
    c.advance(7_000);
    expect(root.timeLeftMs()).toBe(0);
    expect(new Budget({}).deadline()).toBeUndefined();
  });

  it("names the limit that ran out, even a moment before the clock agrees", () => {
    const c = clock();
    const root = new Budget({ maxTimeMs: 5_000 }, undefined, c.now);
    c.advance(4_999);
    expect(root.check()).toBeUndefined();
    expect(root.timeStop()?.message).toBe("budget exhausted: --max-time (5.0 s of 5.0 s used)");
    expect(root.timeStop("no time for a retry")?.message).toMatch(
      /\(5\.0 s of 5\.0 s used; no time for a retry\)/,
    );
  });
});

describe("tokens left with requests in flight", () => {
  it("counts reservations here and above until they are released", () => {
    const root = new Budget({ maxTokens: 1_000 });
    const child = root.child({ maxTokens: 600 });
    const release = child.reserve(400);
    expect(child.tokensLeft()).toBe(200);
    expect(root.tokensLeft()).toBe(600);
    expect(root.tokensLeft(false)).toBe(1_000);
    child.recordCall(300, 0);
    release();
    release();
    expect(child.tokensLeft()).toBe(300);
    expect(root.tokensLeft()).toBe(700);
    expect(new Budget({}).tokensLeft()).toBeUndefined();
  });

  it("wakes whoever waits for a release anywhere in the tree", async () => {
    const root = new Budget({ maxTokens: 1_000 });
    const a = root.child();
    const b = root.child();
    const release = a.reserve(900);
    let woken = false;
    const waiting = b.released().then(() => {
      woken = true;
    });
    await Promise.resolve();
    expect(woken).toBe(false);
    release();
    await waiting;
    expect(woken).toBe(true);
  });
});

describe("admitting a request", () => {
  it("caps the answer at what is left once the estimated prompt is counted, and holds it", async () => {
    const client = offlineClient();
    const budget = new Budget({ maxTokens: 2_000 });
    budget.recordCall(500, 0);
    const request = ask("hello");
    const prompt = client.estimateInputTokens(request);
    const result = await admit(budget, client, request);
    if (result.status !== "admitted") throw new Error(result.status);
    const { admission } = result;
    expect(admission.maxOutputTokens).toBe(1_500 - prompt);
    expect(admission.request.maxOutputTokens).toBe(1_500 - prompt);
    expect(admission.cappedByBudget).toBe(true);
    expect(budget.tokensLeft()).toBe(0);
    admission.release();
    expect(budget.tokensLeft()).toBe(1_500);
  });

  it("takes the model's limit, the request's own cap and the context window when smaller", async () => {
    const budget = new Budget({ maxTokens: 1_000_000 });
    const haiku = offlineClient("claude-3-haiku", "anthropic");
    const byModel = await admit(budget, haiku, ask("hi"));
    expect(byModel.status === "admitted" && byModel.admission).toMatchObject({
      maxOutputTokens: 4_096,
      cappedByBudget: false,
    });
    if (byModel.status === "admitted") byModel.admission.release();
    const byRequest = await admit(budget, haiku, ask("hi", { maxOutputTokens: 100 }));
    expect(byRequest.status === "admitted" && byRequest.admission.maxOutputTokens).toBe(100);
    if (byRequest.status === "admitted") byRequest.admission.release();
    const client = offlineClient();
    const prompt = client.estimateInputTokens(ask("hi"));
    const byWindow = await admit(budget, client, ask("hi"), undefined, { window: 8_192 });
    expect(byWindow.status === "admitted" && byWindow.admission.maxOutputTokens).toBe(8_192 - prompt);
    if (byWindow.status === "admitted") byWindow.admission.release();
  });

  it("without a token limit asks for nothing more than the request did", async () => {
    const result = await admit(new Budget({}), offlineClient(), ask("hi"));
    if (result.status !== "admitted") throw new Error(result.status);
    expect(result.admission.request.maxOutputTokens).toBeUndefined();
    expect(result.admission.request.deadline).toBeUndefined();
    result.admission.release();
  });

  it("refuses before sending when the prompt and a minimal answer do not fit", async () => {
    const client = offlineClient();
    const request = ask("x".repeat(4_000));
    const needed = client.estimateInputTokens(request) + MIN_ANSWER_TOKENS;
    const budget = new Budget({ maxTokens: needed - 1 });
    const result = await admit(budget, client, request);
    expect(result.status).toBe("budget");
    if (result.status !== "budget") return;
    expect(result.stop.budget).toBe("max-tokens");
    expect(result.stop.message).toBe(
      `budget exhausted: --max-tokens (0 of ${needed - 1} tokens used; the next request needs about ${needed} for its prompt and a minimal answer)`,
    );
    expect((await admit(new Budget({ maxTokens: needed }), client, request)).status).toBe("admitted");
  });

  it("waits while a sibling holds the tokens, then gets what its spend left", async () => {
    const client = offlineClient();
    const root = new Budget({ maxTokens: 3_000 });
    const [a, b] = [root.child(), root.child()];
    const first = await admit(a, client, ask("first"));
    if (first.status !== "admitted") throw new Error(first.status);
    let second: Awaited<ReturnType<typeof admit>> | undefined;
    void admit(b, client, ask("second")).then((r) => {
      second = r;
    });
    // One turn of the event loop, not a time window: admit awaits nothing but the budget, so had it not
    // waited for the sibling it would have answered by now.
    await new Promise((r) => setImmediate(r));
    expect(second).toBeUndefined();
    a.recordCall(1_000, 0);
    first.admission.release();
    const admitted = await until(() => second);
    if (admitted.status !== "admitted") throw new Error(admitted.status);
    expect(admitted.admission.maxOutputTokens).toBe(2_000 - client.estimateInputTokens(ask("second")));
    admitted.admission.release();
  });

  it("stops at once when the time is up, and aborts an admitted request at the deadline", async () => {
    const c = clock();
    const spent = new Budget({ maxTimeMs: 1_000 }, undefined, c.now);
    c.advance(1_000);
    const refused = await admit(spent, offlineClient(), ask("hi"));
    expect(refused.status === "budget" && refused.stop.budget).toBe("max-time");

    const budget = new Budget({ maxTimeMs: 150 });
    const result = await admit(budget, offlineClient(), ask("hi"));
    if (result.status !== "admitted") throw new Error(result.status);
    const { admission } = result;
    expect(admission.request.deadline).toBeGreaterThan(Date.now());
    expect(admission.expired).toBe(false);
    await new Promise((r) => admission.signal.addEventListener("abort", r));
    expect(admission.expired).toBe(true);
    admission.release();
  });

  it("reports an interrupt as such, not as a budget stop", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(
      (await admit(new Budget({ maxTimeMs: 60_000 }), offlineClient(), ask("hi"), controller.signal)).status,
    ).toBe("aborted");
  });
});

describe("admitting a request under --max-cost", () => {
  // $10 a million prompt tokens (a cache write $20, the dearer rate counts), $100 a million answer tokens.
  const price = { input: 10, output: 100, cacheWrite: 20 };

  it("caps the answer at what the money left pays for once the prompt is priced, and holds it", async () => {
    const client = offlineClient("scripted", "openai", price);
    const budget = new Budget({ maxCost: 1 });
    budget.recordCall(1_000, 0.5);
    const request = ask("hello");
    const prompt = client.estimateInputTokens(request);
    const result = await admit(budget, client, request);
    if (result.status !== "admitted") throw new Error(result.status);
    const cap = Math.floor((0.5 - prompt * 20e-6) / 100e-6);
    expect(result.admission).toMatchObject({
      maxOutputTokens: cap,
      cappedByBudget: true,
      cappedBy: "max-cost",
    });
    expect(result.admission.request.maxOutputTokens).toBe(cap);
    // The worst case is held: a sibling sees (almost) nothing left.
    expect(budget.costLeft()).toBeLessThan(100e-6);
    result.admission.release();
    expect(budget.costLeft()).toBeCloseTo(0.5, 10);
  });

  it("refuses before sending when the prompt and a minimal answer cost more than is left", async () => {
    const client = offlineClient("scripted", "openai", price);
    const request = ask("x".repeat(40_000));
    const prompt = client.estimateInputTokens(request);
    const worst = prompt * 20e-6 + MIN_ANSWER_TOKENS * 100e-6;
    const tight = new Budget({ maxCost: worst * 0.99 });
    const refused = await admit(tight, client, request);
    expect(refused.status === "budget" && refused.stop).toMatchObject({ budget: "max-cost" });
    expect(refused.status === "budget" && refused.stop.message).toMatch(
      /\$0\.0000 of \$0\.\d+ spent; the next request may cost up to \$0\.\d{4} \(about \d+ prompt tokens/,
    );
    const enough = await admit(new Budget({ maxCost: worst * 1.01 }), client, request);
    expect(enough.status).toBe("admitted");
    if (enough.status === "admitted")
      expect(enough.admission.maxOutputTokens).toBeGreaterThanOrEqual(MIN_ANSWER_TOKENS);
  });

  it("sends no cap of its own for a model whose answers cost nothing and whose limit is unknown", async () => {
    const client = offlineClient("scripted", "openai", { input: 1, output: 0 });
    const result = await admit(new Budget({ maxCost: 5 }), client, ask("hi"));
    if (result.status !== "admitted") throw new Error(result.status);
    expect(result.admission.maxOutputTokens).toBeUndefined();
    expect(result.admission.request.maxOutputTokens).toBeUndefined();
    expect(result.admission.cappedByBudget).toBe(false);
    result.admission.release();
  });

  it("refuses a model whose price is unknown", async () => {
    const result = await admit(new Budget({ maxCost: 5 }), offlineClient("no-such-model-7b"), ask("hi"));
    expect(result.status === "budget" && result.stop.message).toMatch(
      /price of "no-such-model-7b" is unknown/,
    );
  });

  it("finds a spend in flight that goes past a token or cost limit, here or above", () => {
    const root = new Budget({ maxCost: 1 });
    const child = root.child({ maxTokens: 1_000 });
    child.recordCall(400, 0.25);
    expect(child.overrun(600, 0.75)).toBeUndefined();
    expect(child.overrun(601, 0)?.budget).toBe("max-tokens");
    expect(child.overrun(10, 0.76)).toMatchObject({ budget: "max-cost", spent: { cost: 1.01 } });
  });
});

describe("the deadline signal and a cell's limit", () => {
  it("follows the caller's signal too, without calling it expired", () => {
    const controller = new AbortController();
    const deadline = new Deadline(new Budget({ maxTimeMs: 60_000 }), controller.signal);
    controller.abort();
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired).toBe(false);
    deadline.dispose();
  });

  it("shortens a cell's timeout to the deadline, with a short grace and its own reason", () => {
    expect(cellLimit(undefined, 300_000)).toBeUndefined();
    expect(cellLimit(Date.now() + 600_000, 300_000)).toBeUndefined();
    const limit = cellLimit(Date.now() + 5_000, 300_000);
    expect(limit?.timeoutMs).toBeGreaterThan(4_000);
    expect(limit?.timeoutMs).toBeLessThanOrEqual(5_000);
    expect(limit?.interruptGraceMs).toBe(DEADLINE_GRACE_MS);
    expect(limit?.timeoutReason).toMatch(/--max-time/);
    expect(cellLimit(Date.now() - 10, 300_000)?.timeoutMs).toBe(1);
  });
});
