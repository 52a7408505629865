// Wire quirks of real servers that the scripted model does not produce, served raw over HTTP.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createModelClient } from "../../src/llm/index.js";
import type { Provider } from "../../src/llm/types.js";
import { doneOf, errorOf, events, ofType, request, userText } from "./helpers.js";

interface Canned {
  status?: number;
  contentType?: string;
  body: string;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Serves the canned responses in order; returns the base URL. */
async function serve(responses: Canned[]): Promise<string> {
  let i = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const r = responses[Math.min(i++, responses.length - 1)] as Canned;
      res.writeHead(r.status ?? 200, { "content-type": r.contentType ?? "text/event-stream" });
      res.end(r.body);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function client(provider: Provider, baseUrl: string) {
  return createModelClient({ provider, baseUrl, model: "m", retryBaseMs: 1, retryMaxMs: 2 });
}

const sse = (...data: unknown[]) =>
  data.map((d) => `data: ${typeof d === "string" ? d : JSON.stringify(d)}\n\n`).join("");
const chunk = (delta: unknown, finish: string | null = null) => ({
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const hi = request([userText("hi")]);

describe("OpenAI-compatible quirks", () => {
  it("accepts a stream without [DONE] when it had a finish_reason", async () => {
    const base = await serve([{ body: sse(chunk({ content: "fine" }), chunk({}, "stop")) }]);
    const list = await events(client("openai", base), hi);
    expect(ofType(list, "retry")).toHaveLength(0);
    expect(doneOf(list).message.text).toBe("fine");
    expect(doneOf(list).usage.estimated).toBe(true);
  });

  it("retries a stream that closed without finish_reason or [DONE]", async () => {
    const base = await serve([
      { body: sse(chunk({ content: "cut" })) },
      { body: sse(chunk({ content: "whole" }), chunk({}, "stop"), "[DONE]") },
    ]);
    const list = await events(client("openai", base), hi);
    expect(ofType(list, "retry")[0]?.reason).toMatch(/ended before/);
    expect(doneOf(list).message.text).toBe("whole");
  });

  it("retries a mid-stream error object", async () => {
    const base = await serve([
      { body: sse({ error: { message: "upstream overloaded" } }) },
      { body: sse(chunk({ content: "ok" }), chunk({}, "stop"), "[DONE]") },
    ]);
    const list = await events(client("openai", base), hi);
    expect(ofType(list, "retry")[0]?.reason).toMatch(/upstream overloaded/);
    expect(doneOf(list).message.text).toBe("ok");
  });

  it("assembles tool calls sent whole, with object arguments or without an index", async () => {
    const base = await serve([
      {
        body: sse(
          chunk({
            tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: { x: 1 } } }],
          }),
          chunk({ tool_calls: [{ id: "b", type: "function", function: { name: "g", arguments: '{"y"' } }] }),
          chunk({ tool_calls: [{ function: { arguments: ":2}" } }] }),
          chunk({}, "tool_calls"),
          "[DONE]",
        ),
      },
    ]);
    const done = doneOf(await events(client("openai", base), hi));
    expect(done.message.toolCalls).toEqual([
      { id: "a", name: "f", arguments: '{"x":1}' },
      { id: "b", name: "g", arguments: '{"y":2}' },
    ]);
  });

  it("accepts a JSON answer when it asked for a stream", async () => {
    const json = { choices: [{ message: { role: "assistant", content: "plain" }, finish_reason: "stop" }] };
    const base = await serve([{ contentType: "application/json", body: JSON.stringify(json) }]);
    expect(doneOf(await events(client("openai", base), hi)).message.text).toBe("plain");
  });

  it("takes a refusal as the answer's text, streamed and whole", async () => {
    const said = "I'm sorry, I can't help with that.";
    const whole = {
      choices: [{ message: { role: "assistant", content: null, refusal: said }, finish_reason: "stop" }],
    };
    const base = await serve([
      {
        body: sse(
          chunk({ role: "assistant", content: null, refusal: "" }),
          chunk({ refusal: "I'm sorry, " }),
          chunk({ refusal: "I can't help with that." }),
          chunk({}, "stop"),
          "[DONE]",
        ),
      },
      { contentType: "application/json", body: JSON.stringify(whole) },
    ]);
    const streamed = await events(client("openai", base), hi);
    expect(
      ofType(streamed, "text")
        .map((e) => e.delta)
        .join(""),
    ).toBe(said);
    expect(doneOf(streamed).message.text).toBe(said);
    expect(doneOf(await events(client("openai", base), hi)).message.text).toBe(said);
  });

  it("retries a truncated JSON document", async () => {
    const json = JSON.stringify({ choices: [{ message: { content: "x" }, finish_reason: "stop" }] });
    const base = await serve([
      { contentType: "application/json", body: json.slice(0, 20) },
      { contentType: "application/json", body: json },
    ]);
    const c = createModelClient({
      provider: "openai",
      baseUrl: base,
      model: "m",
      stream: false,
      retryBaseMs: 1,
    });
    const list = await events(c, hi);
    expect(ofType(list, "retry")).toHaveLength(1);
    expect(doneOf(list).message.text).toBe("x");
  });
});

describe("Anthropic quirks", () => {
  const ev = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const whole = [
    ev("message_start", {
      message: { usage: { input_tokens: 3, cache_read_input_tokens: 5, cache_creation_input_tokens: 7 } },
    }),
    ev("content_block_start", {
      index: 0,
      content_block: { type: "tool_use", id: "t1", name: "noargs", input: {} },
    }),
    ev("content_block_stop", { index: 0 }),
    ev("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 4 } }),
    ev("message_stop", {}),
  ].join("");

  it("retries an overloaded error event, then reads usage across message_start and message_delta", async () => {
    const base = await serve([
      { body: ev("error", { error: { type: "overloaded_error", message: "Overloaded" } }) },
      { body: whole },
    ]);
    const list = await events(client("anthropic", base), hi);
    expect(ofType(list, "retry")[0]?.reason).toMatch(/overloaded_error/);
    const done = doneOf(list);
    expect(done.usage).toEqual({
      inputTokens: 15,
      outputTokens: 4,
      cachedInputTokens: 5,
      cacheWriteTokens: 7,
      estimated: false,
    });
    // A tool without arguments still gets an object.
    expect(done.message.toolCalls).toEqual([{ id: "t1", name: "noargs", arguments: "{}" }]);
  });

  it("does not retry an invalid_request_error event", async () => {
    const base = await serve([
      { body: ev("error", { error: { type: "invalid_request_error", message: "bad" } }) },
    ]);
    const list = await events(client("anthropic", base), hi);
    expect(ofType(list, "retry")).toHaveLength(0);
    expect(errorOf(list).error.kind).toBe("bad_request");
  });

  it("retries a stream that ends without message_stop", async () => {
    const base = await serve([{ body: whole.split("event: message_stop")[0] ?? "" }, { body: whole }]);
    const list = await events(client("anthropic", base), hi);
    expect(ofType(list, "retry")[0]?.reason).toMatch(/message_stop/);
    expect(doneOf(list).attempts).toBe(2);
  });
});

describe("configuration mistakes", () => {
  it("reports a base URL that is not http(s) as an error event", async () => {
    const list = await events(client("openai", "localhost:11434/v1"), hi);
    expect(errorOf(list).error.kind).toBe("unreachable");
    expect(errorOf(list).error.message).toMatch(/RELM_BASE_URL/);
  });
});
