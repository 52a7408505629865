import { afterEach, describe, expect, it } from "vitest";
import type { Message, ModelClient, Provider } from "../../src/llm/types.js";
import { type ScriptedModel, startScriptedModel } from "../../src/scripted/index.js";
import { clientFor, doneOf, events, FORMATS, MARKER, PNG_BASE64, request, userText } from "./helpers.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

type Json = Record<string, unknown> & { messages: Record<string, unknown>[] };

function bodyOf(m: ScriptedModel, i: number): Json {
  return m.requests[i]?.body as Json;
}

/** One request with a fixed history; returns its parsed body. */
async function send(provider: Provider, messages: Message[], acceptsImages = true): Promise<Json> {
  model = await startScriptedModel({ script: [{ text: "ok" }] });
  const client = clientFor(model, provider, true, { acceptsImages });
  doneOf(await events(client, request(messages)));
  return bodyOf(model, 0);
}

const twoCalls: Message = {
  role: "assistant",
  text: "Running two cells.",
  toolCalls: [
    { id: "c1", name: "ipython", arguments: '{"code":  "print(1)"}' },
    { id: "c2", name: "ipython", arguments: '{"code": "print(2)"}' },
  ],
};

describe.each(FORMATS)("%s request bodies", (provider) => {
  it("each body is a byte extension of the previous one over a tool-using conversation", async () => {
    model = await startScriptedModel({
      script: [{ code: "a = 1" }, { text: "Next.", code: "b = a + 1\nprint(b)" }, { code: "print(a + b)" }],
    });
    const client: ModelClient = clientFor(model, provider, true);
    const messages: Message[] = [userText("Compute things step by step.")];
    for (let i = 0; i < 3; i++) {
      const done = doneOf(await events(client, request(messages)));
      messages.push(done.message);
      for (const call of done.message.toolCalls) {
        messages.push({ role: "tool", toolCallId: call.id, content: [{ type: "text", text: `out ${i}` }] });
      }
    }
    const bodies = model.requests.map((r) =>
      provider === "anthropic" ? r.rawBody.split(MARKER).join("") : r.rawBody,
    );
    expect(bodies).toHaveLength(3);
    for (let i = 1; i < bodies.length; i++) {
      const previous = bodies[i - 1] ?? "";
      expect(previous.endsWith("]}")).toBe(true);
      expect((bodies[i] ?? "").startsWith(previous.slice(0, -2))).toBe(true);
      expect((bodies[i] ?? "").length).toBeGreaterThan(previous.length);
    }
    // Keys in a fixed order, messages last.
    const keys = Object.keys(bodyOf(model, 2));
    expect(keys.at(-1)).toBe("messages");
    expect(keys).toEqual(
      provider === "openai"
        ? ["model", "stream", "stream_options", "tools", "messages"]
        : ["model", "max_tokens", "stream", "system", "tools", "messages"],
    );
  });

  it("re-sends tool call arguments exactly as the model wrote them", async () => {
    const raw = '{"code":  "print(1)"}';
    model = await startScriptedModel({ script: [{ text: "ok" }] });
    const messages: Message[] = [
      userText("go"),
      twoCalls,
      { role: "tool", toolCallId: "c1", content: [{ type: "text", text: "1" }] },
      { role: "tool", toolCallId: "c2", content: [{ type: "text", text: "2" }] },
    ];
    doneOf(await events(clientFor(model, provider, true), request(messages)));
    const rawBody = model.requests[0]?.rawBody ?? "";
    if (provider === "openai") expect(rawBody).toContain(`"arguments":${JSON.stringify(raw)}`);
    else expect(rawBody).toContain(`"input":${raw}`);
  });

  it("replaces images with a placeholder when the model does not take them", async () => {
    const body = await send(
      provider,
      [
        userText("plot it"),
        {
          role: "assistant",
          text: "",
          toolCalls: [{ id: "c1", name: "ipython", arguments: '{"code":"plot()"}' }],
        },
        {
          role: "tool",
          toolCallId: "c1",
          content: [
            { type: "text", text: "figure:" },
            { type: "image", mimeType: "image/png", data: PNG_BASE64 },
          ],
        },
      ],
      false,
    );
    const raw = JSON.stringify(body);
    expect(raw).not.toContain(PNG_BASE64);
    expect(raw).toContain("[image/png, 1 KB: this model does not take images]");
  });
});

describe("anthropic specifics", () => {
  it("marks the system block and only the last block of the last message for caching", async () => {
    model = await startScriptedModel({ script: [{ code: "x = 1" }, { text: "done" }] });
    const client = clientFor(model, "anthropic", true);
    const messages: Message[] = [userText("first")];
    const done = doneOf(await events(client, request(messages)));
    messages.push(done.message, {
      role: "tool",
      toolCallId: done.message.toolCalls[0]?.id ?? "",
      content: [{ type: "text", text: "ok" }],
    });
    doneOf(await events(client, request(messages)));
    const raw = model.requests[1]?.rawBody ?? "";
    expect(raw.split('"cache_control"').length - 1).toBe(2);
    const body = bodyOf(model, 1);
    expect(body.system).toEqual([
      { type: "text", text: "You are a careful assistant.", cache_control: { type: "ephemeral" } },
    ]);
    const last = body.messages.at(-1) as { content: Record<string, unknown>[] };
    expect(last.content.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    expect(last.content.at(-1)?.type).toBe("tool_result");
  });

  it("merges consecutive tool results into one user message", async () => {
    const body = await send("anthropic", [
      userText("go"),
      twoCalls,
      { role: "tool", toolCallId: "c1", content: [{ type: "text", text: "1" }] },
      { role: "tool", toolCallId: "c2", content: [{ type: "text", text: "2" }] },
      userText("and a note"),
    ]);
    expect(body.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    const content = body.messages[2]?.content as Record<string, unknown>[];
    expect(content.map((b) => b.type)).toEqual(["tool_result", "tool_result", "text"]);
    expect(content.map((b) => b.tool_use_id)).toEqual(["c1", "c2", undefined]);
    const assistant = body.messages[1]?.content as Record<string, unknown>[];
    expect(assistant.map((b) => b.type)).toEqual(["text", "tool_use", "tool_use"]);
  });

  it("puts images inside tool_result content", async () => {
    const body = await send("anthropic", [
      userText("plot"),
      {
        role: "assistant",
        text: "",
        toolCalls: [{ id: "c1", name: "ipython", arguments: '{"code":"plot()"}' }],
      },
      {
        role: "tool",
        toolCallId: "c1",
        content: [
          { type: "text", text: "figure:" },
          { type: "image", mimeType: "image/png", data: PNG_BASE64 },
        ],
      },
    ]);
    const result = (body.messages[2]?.content as Record<string, unknown>[] | undefined)?.[0];
    expect(result?.content).toEqual([
      { type: "text", text: "figure:" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
    ]);
  });

  it("uses max_tokens 16384 by default and the request's override", async () => {
    model = await startScriptedModel({ script: [{ text: "a" }, { text: "b" }] });
    const client = clientFor(model, "anthropic", false);
    doneOf(await events(client, request([userText("x")])));
    doneOf(await events(client, request([userText("x")], { maxOutputTokens: 100 })));
    expect(bodyOf(model, 0).max_tokens).toBe(16384);
    expect(bodyOf(model, 1).max_tokens).toBe(100);
    expect(bodyOf(model, 0).stream).toBeUndefined();
  });

  it("accepts a base URL that already ends with /v1", async () => {
    model = await startScriptedModel({ script: [{ text: "fine" }] });
    const client = clientFor(model, "anthropic", true, { baseUrl: `${model.url}/v1/` });
    expect(doneOf(await events(client, request([userText("x")]))).message.text).toBe("fine");
    expect(model.requests[0]?.path).toBe("/v1/messages");
  });
});

describe("openai specifics", () => {
  it("sends tool results as tool messages and their images in one user message after them", async () => {
    const body = await send("openai", [
      userText("go"),
      twoCalls,
      {
        role: "tool",
        toolCallId: "c1",
        content: [
          { type: "text", text: "figure:" },
          { type: "image", mimeType: "image/png", data: PNG_BASE64 },
        ],
      },
      { role: "tool", toolCallId: "c2", content: [{ type: "text", text: "2" }] },
    ]);
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "user"]);
    expect(body.messages[3]).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: "figure:\n[image/png, 1 KB: attached in the next message]",
    });
    expect(body.messages[5]?.content).toEqual([
      { type: "text", text: "Images from tool call c1:" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
    ]);
  });

  it("asks for usage in streams and sends no Authorization header without a key", async () => {
    model = await startScriptedModel({ script: [{ text: "a" }] });
    doneOf(await events(clientFor(model, "openai", true), request([userText("x")])));
    expect(bodyOf(model, 0).stream_options).toEqual({ include_usage: true });
    expect(model.requests[0]?.headers.authorization).toBeUndefined();
    expect(model.requests[0]?.path).toBe("/v1/chat/completions");
  });

  it("serialises assistant tool calls in the chat-completions shape", async () => {
    const body = await send("openai", [userText("go"), twoCalls]);
    expect(body.messages[2]).toEqual({
      role: "assistant",
      content: "Running two cells.",
      tool_calls: [
        { id: "c1", type: "function", function: { name: "ipython", arguments: '{"code":  "print(1)"}' } },
        { id: "c2", type: "function", function: { name: "ipython", arguments: '{"code": "print(2)"}' } },
      ],
    });
    expect(body.tools).toEqual([
      {
        type: "function",
        function: { name: "ipython", description: expect.any(String), parameters: expect.any(Object) },
      },
    ]);
  });
});
