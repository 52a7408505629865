import { describe, expect, it } from "vitest";
import { collectResponse, isModelError } from "../../src/llm/index.js";
import type { Message } from "../../src/llm/types.js";
import type { ScriptedModel } from "../../src/scripted/index.js";
import { until } from "../support/wait.js";
import {
  clientFor,
  doneOf,
  errorOf,
  events,
  MATRIX,
  ofType,
  request,
  userText,
  useScriptedModels,
} from "./helpers.js";

const start = useScriptedModels();

describe.each(MATRIX)("%s client (stream: %s)", (provider, stream) => {
  const hello = request([userText("Say hello.")]);

  it("streams a text answer and ends with exactly one done", async () => {
    const text = "Hello there! This answer is long enough to arrive in several deltas.";
    const m = await start({ script: [{ text }] });
    const list = await events(clientFor(m, provider, stream), hello);
    expect(
      ofType(list, "text")
        .map((e) => e.delta)
        .join(""),
    ).toBe(text);
    if (stream) expect(ofType(list, "text").length).toBeGreaterThan(1);
    const done = doneOf(list);
    expect(done.message).toEqual({ role: "assistant", text, toolCalls: [] });
    expect(done.stopReason).toBe(provider === "openai" ? "stop" : "end_turn");
    expect(done.attempts).toBe(1);
    expect(done.requestBytes).toBe(Buffer.byteLength(m.requests[0]?.rawBody ?? ""));
    expect(list.filter((e) => e.type === "done" || e.type === "error")).toHaveLength(1);
  });

  it("assembles a tool call with the exact raw arguments", async () => {
    const raw = '{"code":  "import math\\nprint(math.pi)",\n  "note": [1, 2, 3]}';
    const m = await start({
      script: [{ text: "Let me compute.", toolCalls: [{ name: "ipython", arguments: raw }] }],
    });
    const list = await events(clientFor(m, provider, stream), hello);
    const done = doneOf(list);
    const call = done.message.toolCalls[0];
    expect(done.message.toolCalls).toHaveLength(1);
    expect(call?.id).toBe(provider === "openai" ? "call_1" : "toolu_1");
    expect(call?.name).toBe("ipython");
    // The non-streaming Anthropic API returns `input` parsed, so only its value survives there.
    if (provider === "anthropic" && !stream)
      expect(JSON.parse(call?.arguments ?? "")).toEqual(JSON.parse(raw));
    else expect(call?.arguments).toBe(raw);
    expect(done.message.text).toBe("Let me compute.");
    expect(done.stopReason).toBe(provider === "openai" ? "tool_calls" : "tool_use");
    const starts = ofType(list, "tool_call_start");
    expect(starts).toEqual([{ type: "tool_call_start", index: 0, id: call?.id, name: "ipython" }]);
    expect(
      ofType(list, "tool_call_delta")
        .map((e) => e.delta)
        .join(""),
    ).toBe(call?.arguments);
  });

  it("turns a code step into one ipython call", async () => {
    const m = await start({ script: [{ code: "print(2 + 2)" }, { code: "x = 1" }] });
    const client = clientFor(m, provider, stream);
    const first = doneOf(await events(client, hello));
    const second = doneOf(await events(client, hello));
    expect(first.message.toolCalls[0]?.name).toBe("ipython");
    expect(JSON.parse(first.message.toolCalls[0]?.arguments ?? "")).toEqual({ code: "print(2 + 2)" });
    expect(second.message.toolCalls[0]?.id).toBe(provider === "openai" ? "call_2" : "toolu_2");
  });

  it("reports usage, cached tokens and cost", async () => {
    const m = await start({ script: [{ text: "first answer" }, { text: "second answer" }] });
    const price = { input: 2, output: 10, cachedInput: 0.5 };
    const client = clientFor(m, provider, stream, { price });
    expect(client.price).toEqual(price);
    const messages: Message[] = [userText("What is the meaning of life? Explain at length.")];
    const first = doneOf(await events(client, request(messages)));
    messages.push(first.message, userText("And then?"));
    const second = doneOf(await events(client, request(messages)));

    const [r1, r2] = m.requests.map((r) => r.rawBody);
    const input2 = Math.ceil((r2 ?? "").length / 4);
    expect(first.usage.inputTokens).toBe(Math.ceil((r1 ?? "").length / 4));
    expect(first.usage.outputTokens).toBe(Math.ceil("first answer".length / 4));
    expect(first.usage.cachedInputTokens).toBe(0);
    let prefix = 0;
    while (r1?.[prefix] === r2?.[prefix]) prefix++;
    const cached = Math.floor(prefix / 4);
    expect(cached).toBeGreaterThan(0);
    expect(second.usage).toEqual({
      inputTokens: input2,
      outputTokens: Math.ceil("second answer".length / 4),
      cachedInputTokens: cached,
      cacheWriteTokens: 0,
      estimated: false,
    });
    const expected = ((input2 - cached) * 2 + cached * 0.5 + second.usage.outputTokens * 10) / 1e6;
    expect(second.cost).toBeCloseTo(expected, 12);
  });

  it("estimates usage when the server reports none", async () => {
    const m = await start({ script: [{ text: "twelve chars" }], reportUsage: false });
    const done = doneOf(
      await events(clientFor(m, provider, stream, { price: { input: 1, output: 1 } }), hello),
    );
    expect(done.usage).toEqual({
      inputTokens: Math.ceil(done.requestBytes / 4),
      outputTokens: 3,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      estimated: true,
    });
    expect(done.cost).toBeCloseTo((done.usage.inputTokens + 3) / 1e6, 12);
  });

  it("retries a 500 and then succeeds", async () => {
    const m = await start({ script: [{ status: 500, body: "overloaded" }, { text: "recovered" }] });
    const list = await events(clientFor(m, provider, stream), hello);
    const retries = ofType(list, "retry");
    expect(retries).toHaveLength(1);
    expect(retries[0]?.attempt).toBe(2);
    expect(retries[0]?.reason).toMatch(/HTTP 500.*overloaded/);
    expect(doneOf(list).message.text).toBe("recovered");
    expect(doneOf(list).attempts).toBe(2);
    expect(m.requests).toHaveLength(2);
  });

  it("honours retry-after-ms on a 429", async () => {
    const m = await start({ script: [{ status: 429, headers: { "retry-after-ms": "30" } }, { text: "ok" }] });
    const list = await events(clientFor(m, provider, stream), hello);
    expect(ofType(list, "retry").map((e) => e.delayMs)).toEqual([30]);
    expect(doneOf(list).message.text).toBe("ok");
  });

  it("retries a dropped stream, and the retry event precedes the final answer", async () => {
    const m = await start({
      script: [{ drop: true, text: "a partial answer that never finishes" }, { text: "whole" }],
    });
    const list = await events(clientFor(m, provider, stream), hello);
    const retryAt = list.findIndex((e) => e.type === "retry");
    expect(retryAt).toBeGreaterThanOrEqual(0);
    if (stream) expect(list.slice(0, retryAt).some((e) => e.type === "text")).toBe(true);
    const after = list.slice(retryAt + 1);
    expect(
      ofType(after, "text")
        .map((e) => e.delta)
        .join(""),
    ).toBe("whole");
    expect(doneOf(list).message.text).toBe("whole");
    expect(m.requests).toHaveLength(2);
  });

  it("retries a reply that ends cleanly without a finish reason or message_stop", async () => {
    const m = await start({
      script: [{ unfinished: true }, { unfinished: true, text: "half" }, { text: "whole" }],
    });
    const list = await events(clientFor(m, provider, stream), hello);
    expect(ofType(list, "retry")).toHaveLength(2);
    expect(doneOf(list).message.text).toBe("whole");
    expect(m.requests).toHaveLength(3);
  });

  it("never turns a stream of unfinished replies into an empty answer", async () => {
    const m = await start({ script: [{ unfinished: true }], onExhausted: "repeat-last" });
    const list = await events(clientFor(m, provider, stream, { maxAttempts: 2 }), hello);
    expect(ofType(list, "done")).toHaveLength(0);
    expect(errorOf(list).error).toMatchObject({ kind: "stream", attempts: 2 });
  });

  it("gives up with one error event after exactly 5 attempts", async () => {
    const fail = { status: 503 };
    const m = await start({ script: [fail, fail, fail, fail, fail, { text: "too late" }] });
    const list = await events(clientFor(m, provider, stream), hello);
    expect(m.requests).toHaveLength(5);
    expect(ofType(list, "retry").map((e) => e.attempt)).toEqual([2, 3, 4, 5]);
    expect(list.filter((e) => e.type === "error" || e.type === "done")).toHaveLength(1);
    const { error } = errorOf(list);
    expect(error).toMatchObject({ kind: "server", status: 503, attempts: 5 });
    expect(error.message).toMatch(/HTTP 503/);
    expect(error.message).not.toMatch(/\n/);
  });

  it("does not retry a 400 and reports the server's reason", async () => {
    const m = await start({ script: [{ status: 400, body: '{"error":{"message":"context too long"}}' }] });
    const { error } = errorOf(await events(clientFor(m, provider, stream), hello));
    expect(error).toMatchObject({ kind: "bad_request", status: 400, attempts: 1 });
    expect(error.message).toContain("context too long");
    expect(m.requests).toHaveLength(1);
  });

  it("reports a prompt too long for the model's window as context_length, not retried", async () => {
    const m = await start({ script: [{ tooLong: true, window: 4096 }] });
    const { error } = errorOf(await events(clientFor(m, provider, stream), hello));
    expect(error).toMatchObject({ kind: "context_length", status: 400, attempts: 1 });
    expect(error.message).toMatch(
      /prompt is too long for the context window of model "scripted" \(HTTP 400\)/,
    );
    expect(error.message).toMatch(
      provider === "anthropic" ? /> 4096 maximum/ : /maximum context length is 4096/,
    );
    expect(m.requests).toHaveLength(1);
  });

  it("reports a rejected key as auth without ever showing the key", async () => {
    const key = "sk-test-very-secret-key-0123456789";
    const m = await start({ script: [{ text: "never" }], requireApiKey: "sk-the-right-one" });
    const list = await events(clientFor(m, provider, stream, { apiKey: key }), hello);
    const { error } = errorOf(list);
    expect(error).toMatchObject({ kind: "auth", status: 401, attempts: 1 });
    expect(error.message).toMatch(/rejected the API key \(HTTP 401\); check RELM_API_KEY/);
    expect(JSON.stringify(list)).not.toContain(key);
    // The server echoed the key; it was redacted from the diagnostic detail too.
    expect(error.detail).toContain("[redacted]");
    expect(m.requests).toHaveLength(1);
  });

  it("reports an error event that refuses the request once, and retries one that says the server failed", async () => {
    const overloaded = provider === "anthropic" ? "overloaded_error" : "server_error";
    const m = await start({
      script: [
        { failed: { code: overloaded, message: "busy" } },
        { failed: { code: "invalid_prompt", message: "this prompt is refused" } },
      ],
    });
    const list = await events(clientFor(m, provider, stream), hello);
    expect(ofType(list, "retry")).toHaveLength(1);
    expect(errorOf(list).error).toMatchObject({ kind: "bad_request", attempts: 2 });
    expect(errorOf(list).error.message).toContain("this prompt is refused");
    expect(m.requests).toHaveLength(2);
  });

  it("never shows a sign-in's token that a server echoes in an error inside a 200 answer", async () => {
    const token = "oauth-access-token-0123456789abcdef";
    const echo = `the token ${token} is not allowed for this model`;
    // An overload, retried once and then reported: both the retry's reason and the error leave the client.
    const failed = { code: provider === "anthropic" ? "overloaded_error" : "server_error", message: echo };
    const m = await start({ script: [{ failed }, { failed }] });
    const client = clientFor(m, provider, stream, {
      maxAttempts: 2,
      auth: async () => ({ authorization: `Bearer ${token}` }),
    });
    const list = await events(client, hello);
    expect(m.requests[0]?.headers.authorization).toBe(`Bearer ${token}`);
    expect(ofType(list, "retry").length).toBeGreaterThan(0);
    expect(errorOf(list).error.message).toContain("is not allowed for this model");
    expect(JSON.stringify(list)).not.toContain(token);
  });

  it("sends the key the provider's way and succeeds with the right one", async () => {
    const m = await start({ script: [{ text: "welcome" }], requireApiKey: "sk-right" });
    const done = doneOf(await events(clientFor(m, provider, stream, { apiKey: "sk-right" }), hello));
    expect(done.message.text).toBe("welcome");
    const headers = m.requests[0]?.headers ?? {};
    if (provider === "openai") expect(headers.authorization).toBe("Bearer sk-right");
    else {
      expect(headers["x-api-key"]).toBe("sk-right");
      expect(headers["anthropic-version"]).toBe("2023-06-01");
      expect(headers.authorization).toBeUndefined();
    }
  });

  it("reports 404 as not_found naming the model and base URL", async () => {
    const m = await start({ script: [{ text: "never" }], models: ["some-other-model"] });
    const { error } = errorOf(await events(clientFor(m, provider, stream), hello));
    expect(error).toMatchObject({ kind: "not_found", status: 404, attempts: 1 });
    expect(error.message).toContain('"scripted"');
    expect(error.message).toContain(m.url);
  });

  it("reports a closed port as unreachable without retrying", async () => {
    const { closedPort } = await import("./helpers.js");
    const port = await closedPort();
    const baseUrl = provider === "openai" ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
    const client = clientFor(
      { openaiBaseUrl: baseUrl, anthropicBaseUrl: baseUrl } as ScriptedModel,
      provider,
      stream,
      {
        retryBaseMs: 10_000,
      },
    );
    const list = await events(client, hello);
    expect(ofType(list, "retry")).toHaveLength(0);
    const { error } = errorOf(list);
    expect(error).toMatchObject({ kind: "unreachable", attempts: 1 });
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toMatch(/not running or not reachable/);
  });

  it("ends with aborted when the signal fires mid-request", async () => {
    // Answers far later than the test lasts: only the abort ends the request.
    const m = await start({ script: [{ text: "too slow", delayMs: 10_000 }] });
    const controller = new AbortController();
    const pending = events(clientFor(m, provider, stream), hello, controller.signal);
    await until(() => (m.requests.length > 0 ? true : undefined));
    controller.abort();
    const list = await pending;
    expect(errorOf(list).error.kind).toBe("aborted");
    expect(list.filter((e) => e.type === "error" || e.type === "done")).toHaveLength(1);
  });

  it("ends with aborted at once when the signal already fired", async () => {
    const m = await start({ script: [{ text: "never" }] });
    const list = await events(clientFor(m, provider, stream), hello, AbortSignal.abort());
    expect(list).toHaveLength(1);
    expect(errorOf(list).error).toMatchObject({ kind: "aborted", attempts: 0 });
    expect(m.requests).toHaveLength(0);
  });

  it("retries a try that goes idle", async () => {
    // The first try stays silent 20 times longer than the idle limit: the limit, not the delay, ends it.
    const m = await start({ script: [{ text: "late", delayMs: 2_000 }, { text: "prompt" }] });
    const list = await events(clientFor(m, provider, stream, { idleTimeoutMs: 100 }), hello);
    expect(ofType(list, "retry")[0]?.reason).toMatch(/no data from .* for 100 ms/);
    expect(doneOf(list).message.text).toBe("prompt");
  });

  it("collectResponse resets on retry and returns the final response", async () => {
    const m = await start({ script: [{ drop: true }, { text: "complete" }] });
    const result = await collectResponse(clientFor(m, provider, stream).stream(hello));
    if (isModelError(result)) throw new Error(result.error.message);
    expect(result.message.text).toBe("complete");
    expect(result.attempts).toBe(2);
    expect("type" in result).toBe(false);
  });
});
