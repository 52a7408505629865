import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../src/llm/types.js";
import { type ScriptContext, type ScriptedModel, startScriptedModel } from "../../src/scripted/index.js";
import { clientFor, doneOf, errorOf, events, FORMATS, request, userText } from "./helpers.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

describe("scripted model server", () => {
  it("answers 500 naming the request when the script is exhausted, and records it", async () => {
    model = await startScriptedModel({ script: [{ text: "only one" }] });
    const client = clientFor(model, "openai", true, { maxAttempts: 2 });
    doneOf(await events(client, request([userText("a")])));
    const { error } = errorOf(await events(client, request([userText("b")])));
    expect(error.kind).toBe("server");
    expect(error.message).toContain("scripted model: script exhausted at request 3");
    expect(model.problems).toEqual([
      "scripted model: script exhausted at request 2",
      "scripted model: script exhausted at request 3",
    ]);
  });

  it("can repeat its last step instead", async () => {
    model = await startScriptedModel({ script: [{ text: "again" }], onExhausted: "repeat-last" });
    const client = clientFor(model, "anthropic", false);
    for (let i = 0; i < 3; i++)
      expect(doneOf(await events(client, request([userText("x")]))).message.text).toBe("again");
  });

  it("lists its models on GET /v1/models in either format", async () => {
    model = await startScriptedModel({ script: [], models: ["m1", "m2"] });
    const openai = (await (await fetch(`${model.openaiBaseUrl}/models`)).json()) as {
      data: { id: string }[];
    };
    expect(openai.data.map((d) => d.id)).toEqual(["m1", "m2"]);
    const anthropic = (await (
      await fetch(`${model.url}/v1/models`, { headers: { "anthropic-version": "2023-06-01" } })
    ).json()) as { data: { type: string; id: string }[] };
    expect(anthropic.data).toEqual([
      { type: "model", id: "m1", display_name: "m1", created_at: "1970-01-01T00:00:00Z" },
      { type: "model", id: "m2", display_name: "m2", created_at: "1970-01-01T00:00:00Z" },
    ]);
    expect(model.requests).toHaveLength(0);
  });

  it("writes OpenAI SSE chunks faithfully", async () => {
    model = await startScriptedModel({ script: [{ text: "hi", code: "1" }] });
    const res = await fetch(`${model.openaiBaseUrl}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({
        model: "gpt",
        stream: true,
        stream_options: { include_usage: true },
        messages: [],
      }),
    });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const lines = (await res.text()).split("\n\n").filter((l) => l !== "");
    expect(lines.every((l) => l.startsWith("data: "))).toBe(true);
    expect(lines.at(-1)).toBe("data: [DONE]");
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l.slice(6)));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    const start = chunks.find((c) => c.choices[0]?.delta.tool_calls?.[0]?.id);
    expect(start.choices[0].delta.tool_calls[0]).toEqual({
      index: 0,
      id: "call_1",
      type: "function",
      function: { name: "ipython", arguments: "" },
    });
    expect(chunks.at(-2).choices[0].finish_reason).toBe("tool_calls");
    expect(chunks.at(-1).choices).toEqual([]);
    expect(chunks.at(-1).usage.prompt_tokens).toBeGreaterThan(0);
  });

  it("writes Anthropic SSE events faithfully", async () => {
    model = await startScriptedModel({ script: [{ text: "hi", code: "1" }] });
    const res = await fetch(`${model.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "claude", stream: true, max_tokens: 10, messages: [] }),
    });
    const events = (await res.text())
      .split("\n\n")
      .filter((l) => l !== "")
      .map((block) => {
        const [event, data] = block.split("\n");
        return { event: event?.slice(7), data: JSON.parse(data?.slice(6) ?? "") };
      });
    expect(events.every((e) => e.event === e.data.type)).toBe(true);
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events[5]?.data.content_block).toEqual({
      type: "tool_use",
      id: "toolu_1",
      name: "ipython",
      input: {},
    });
    expect(events[7]?.data.delta).toEqual({ type: "input_json_delta", partial_json: '{"code":"1"}' });
    expect(events[9]?.data.delta.stop_reason).toBe("tool_use");
  });

  it.each(FORMATS)("gives step functions the last tool result and user text (%s)", async (provider) => {
    const seen: ScriptContext[] = [];
    model = await startScriptedModel({
      script: (ctx) => {
        seen.push(ctx);
        return { text: `echo: ${ctx.lastToolResult}` };
      },
    });
    const messages: Message[] = [
      userText("first question"),
      { role: "assistant", text: "", toolCalls: [{ id: "c1", name: "ipython", arguments: '{"code":"1"}' }] },
      { role: "tool", toolCallId: "c1", content: [{ type: "text", text: "result one" }] },
      { role: "assistant", text: "", toolCalls: [{ id: "c2", name: "ipython", arguments: '{"code":"2"}' }] },
      { role: "tool", toolCallId: "c2", content: [{ type: "text", text: "result two" }] },
    ];
    const done = doneOf(await events(clientFor(model, provider, true), request(messages)));
    expect(done.message.text).toBe("echo: result two");
    expect(seen[0]).toMatchObject({
      index: 0,
      format: provider,
      lastToolResult: "result two",
      lastUserText: "first question",
    });
    expect(seen[0]?.rawBody).toBe(model.requests[0]?.rawBody);
  });
});
