// The llm layer's part of hard budgets: output limits, the prompt estimate, retries that must fit
// before a deadline, and the scripted model cutting an answer at max_tokens as a real one does.

import { afterEach, describe, expect, it } from "vitest";
import { outputLimit, TokenEstimator } from "../../src/llm/limits.js";
import { MIN_TRY_MS, retryFits } from "../../src/llm/retry.js";
import { limitAnswer } from "../../src/scripted/answer.js";
import { type ScriptedModel, startScriptedModel } from "../../src/scripted/index.js";
import { clientFor, doneOf, errorOf, events, FORMATS, ofType, request, userText } from "./helpers.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

describe("output limits and the prompt estimate", () => {
  it("knows OpenAI's and Anthropic's limits, and none for other servers' models", () => {
    expect(outputLimit("openai", "gpt-4o-2024-08-06")).toBe(16_384);
    expect(outputLimit("openai", "openai/gpt-5-mini")).toBe(128_000);
    expect(outputLimit("openai", "qwen3:8b")).toBeUndefined();
    expect(outputLimit("anthropic", "claude-3-haiku-20240307")).toBe(4_096);
    expect(outputLimit("anthropic", "claude-sonnet-4-5")).toBe(16_384);
  });

  it("estimates four bytes a token first, then follows the server's counts with a 10% margin", () => {
    const estimator = new TokenEstimator();
    expect(estimator.estimate(4_000)).toBe(1_000);
    estimator.observe(4_000, 2_000);
    expect(estimator.estimate(4_000)).toBe(2_200);
    estimator.observe(0, 10);
    expect(estimator.estimate(1_000)).toBe(550);
  });

  it("a client's estimate counts the cap field too, and its cap never exceeds the model's limit", async () => {
    const m = await (async () => {
      model = await startScriptedModel({ script: [{ text: "ok" }] });
      return model;
    })();
    const client = clientFor(m, "anthropic", true, { model: "claude-3-haiku-20240307" });
    expect(client.maxOutputTokens).toBe(4_096);
    const req = request([userText("hello")], { maxOutputTokens: 100_000 });
    const estimate = client.estimateInputTokens(req);
    doneOf(await events(client, req));
    const body = m.requests[0]?.rawBody ?? "";
    expect(JSON.parse(body).max_tokens).toBe(4_096);
    expect(estimate).toBeGreaterThanOrEqual(Math.ceil(body.length / 4));
  });
});

describe("retries before a deadline", () => {
  const policy = { idleTimeoutMs: 300_000 };

  it("fits when the time left covers the delay and a try as long as the failed one", () => {
    expect(retryFits(10_000, 0, 2_000, 3_000, policy)).toBe(true);
    expect(retryFits(10_000, 0, 8_000, 3_000, policy)).toBe(false);
    // A failure that came back at once still assumes a try takes a second.
    expect(retryFits(10_000, 0, 9_500, 10, policy)).toBe(false);
    expect(retryFits(10_000, 0, 9_000 - MIN_TRY_MS, 10, policy)).toBe(true);
    // A try that hung ran into the idle timeout: that much again must be left.
    expect(retryFits(60_000, 0, 1_000, 30_000, { idleTimeoutMs: 30_000 })).toBe(true);
    expect(retryFits(20_000, 0, 1_000, 30_000, { idleTimeoutMs: 30_000 })).toBe(false);
  });

  it.each(FORMATS)("%s: a retry that would not fit is not sent, and the error says so", async (provider) => {
    model = await startScriptedModel({ script: [{ status: 503, retryAfter: 5 }, { text: "late" }] });
    const client = clientFor(model, provider, true);
    const list = await events(client, request([userText("hi")], { deadline: Date.now() + 2_000 }));
    const error = errorOf(list).error;
    expect(error.outOfTime).toBe(true);
    expect(error.message).toMatch(/not retried: the time left before the deadline cannot cover another try/);
    expect(ofType(list, "retry")).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });

  it("without a deadline the same failure is retried", async () => {
    model = await startScriptedModel({ script: [{ status: 503 }, { text: "second try" }] });
    const done = doneOf(await events(clientFor(model, "openai", true), request([userText("hi")])));
    expect(done.message.text).toBe("second try");
    expect(done.attempts).toBe(2);
  });
});

describe("the scripted model stops at max_tokens", () => {
  const answer = {
    id: "a",
    model: "m",
    text: "abcdefgh",
    toolCalls: [{ id: "c", name: "ipython", arguments: '{"code": "print(1)"}' }],
    usage: null,
  };

  it("cuts text first, then tool-call arguments, and says it was cut", () => {
    expect(limitAnswer(answer, undefined)).toBe(answer);
    expect(limitAnswer(answer, 100)).toBe(answer);
    const one = limitAnswer(answer, 1);
    expect(one).toMatchObject({ text: "abcd", toolCalls: [], truncated: true });
    const three = limitAnswer(answer, 3);
    expect(three.text).toBe("abcdefgh");
    expect(three.toolCalls).toEqual([{ id: "c", name: "ipython", arguments: '{"co' }]);
  });

  it.each(FORMATS)("%s: finish reason length / max_tokens, usage at the cap", async (provider) => {
    model = await startScriptedModel({ script: [{ text: "x".repeat(400) }] });
    const client = clientFor(model, provider, true);
    const done = doneOf(await events(client, request([userText("hi")], { maxOutputTokens: 10 })));
    expect(done.message.text).toBe("x".repeat(40));
    expect(done.stopReason).toBe(provider === "openai" ? "length" : "max_tokens");
    expect(done.usage.outputTokens).toBe(10);
  });
});
