// The OpenAI Responses API client against the scripted server over real HTTP: streamed and whole
// answers, reasoning items carried across turns unchanged, byte-extending bodies, usage, truncation,
// failures in the stream, and the sign-in hook.
import { afterEach, describe, expect, it } from "vitest";
import { buildResponsesBody } from "../../src/llm/responses.js";
import type { Message, ModelClient } from "../../src/llm/types.js";
import { type ScriptedModel, startScriptedModel, whoAsks } from "../../src/scripted/index.js";
import { clientFor, doneOf, errorOf, events, ofType, request, userText } from "./helpers.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

type Item = Record<string, unknown>;
const inputOf = (m: ScriptedModel, i: number) =>
  (m.requests[i]?.body as { input: Item[] } | undefined)?.input ?? [];

describe.each([true, false])("Responses API (stream %s)", (stream) => {
  it("runs a three-turn tool loop that carries the first turn's reasoning item unchanged", async () => {
    model = await startScriptedModel({
      script: [
        { reasoning: "Set a first, then print it.", code: "a = 1" },
        { reasoning: "Now print a.", text: "Next.", code: "print(a)" },
        { text: "a is 1." },
      ],
    });
    const client: ModelClient = clientFor(model, "openai-responses", stream, { model: "gpt-5-mini" });
    const messages: Message[] = [userText("Set a and print it.")];
    const dones = [];
    const thought: string[] = [];
    for (let i = 0; i < 3; i++) {
      const list = await events(client, request(messages));
      for (const e of ofType(list, "reasoning")) thought.push(e.delta);
      const done = doneOf(list);
      dones.push(done);
      messages.push(done.message);
      for (const call of done.message.toolCalls) {
        messages.push({ role: "tool", toolCallId: call.id, content: [{ type: "text", text: `out ${i}` }] });
      }
    }
    // The server refuses (400) any reasoning item that comes back changed, so three answers mean all held.
    expect(model.problems).toEqual([]);
    expect(dones.map((d) => d.stopReason)).toEqual(["completed", "completed", "completed"]);
    expect(thought.join("")).toBe("Set a first, then print it.Now print a.");

    const [first, second, third] = dones;
    expect(first?.message.toolCalls).toEqual([
      { id: "call_1", name: "ipython", arguments: '{"code":"a = 1"}' },
    ]);
    expect(second?.message.text).toBe("Next.");
    expect(second?.message.toolCalls[0]?.arguments).toBe('{"code":"print(a)"}');
    expect(third?.message.text).toBe("a is 1.");
    const item = first?.message.reasoning?.items[0] as Item;
    expect(first?.message.reasoning?.format).toBe("openai-responses");
    expect(item.id).toBe("rs_scripted_1");
    expect(typeof item.encrypted_content).toBe("string");
    expect(item.summary).toEqual([{ type: "summary_text", text: "Set a first, then print it." }]);

    // Requests 2 and 3 hold the first answer's reasoning item byte for byte, before its function call.
    const sent = JSON.stringify(item);
    for (const i of [1, 2]) {
      const raw = model.requests[i]?.rawBody ?? "";
      expect(raw).toContain(`${sent},{"type":"function_call","call_id":"call_1","name":"ipython",`);
      expect(inputOf(model, i).filter((x) => x.type === "reasoning")).toHaveLength(i);
    }
    expect(inputOf(model, 2)).toContainEqual({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "Next.", annotations: [] }],
      status: "completed",
      id: "msg_scripted_2",
    });

    // Each body extends the previous one byte for byte, `input` last.
    const bodies = model.requests.map((r) => r.rawBody);
    for (let i = 1; i < bodies.length; i++) {
      const previous = bodies[i - 1] ?? "";
      expect(previous.endsWith("]}")).toBe(true);
      expect((bodies[i] ?? "").startsWith(previous.slice(0, -2))).toBe(true);
    }
    const body = model.requests[2]?.body as Item;
    expect(Object.keys(body)).toEqual(
      stream
        ? ["model", "instructions", "stream", "store", "include", "tools", "input"]
        : ["model", "instructions", "store", "include", "tools", "input"],
    );
    expect(body.store).toBe(false);
    expect(body.include).toEqual(["reasoning.encrypted_content"]);
    expect(body.instructions).toBe("You are a careful assistant.");
    expect(body.tools).toEqual([
      expect.objectContaining({ type: "function", name: "ipython", strict: false }),
    ]);
    expect(inputOf(model, 2).at(-1)).toEqual({
      type: "function_call_output",
      call_id: "call_2",
      output: "out 1",
    });

    // Usage as reported: cached tokens (the shared prefix) and reasoning tokens.
    expect(first?.usage.cachedInputTokens).toBe(0);
    expect(second?.usage.cachedInputTokens).toBeGreaterThan(0);
    expect(third?.usage.cachedInputTokens).toBeGreaterThan(second?.usage.cachedInputTokens ?? 0);
    expect(first?.usage.reasoningTokens).toBe(Math.ceil("Set a first, then print it.".length / 4));
    expect(first?.usage.estimated).toBe(false);
  });

  it("reports an answer cut off at max_output_tokens as incomplete", async () => {
    model = await startScriptedModel({ script: [{ text: "x".repeat(400) }] });
    const client = clientFor(model, "openai-responses", stream, { model: "gpt-4.1" });
    const done = doneOf(await events(client, request([userText("long")], { maxOutputTokens: 10 })));
    expect(done.stopReason).toBe("max_output_tokens");
    expect(done.message.text).toBe("x".repeat(40));
    const body = model.requests[0]?.body as Item;
    expect(body.max_output_tokens).toBe(10);
    // Not a reasoning model: nothing asked about reasoning.
    expect(body.include).toBeUndefined();
    expect(body.reasoning).toBeUndefined();
  });
});

describe("Responses API failures and settings", () => {
  it("retries response.failed with a server error, and reports another failure once", async () => {
    model = await startScriptedModel({
      script: [
        { failed: { code: "server_error", message: "The model crashed." } },
        { text: "fine now" },
        { failed: { code: "invalid_prompt", message: "Not allowed." } },
      ],
    });
    const client = clientFor(model, "openai-responses", true);
    const list = await events(client, request([userText("hi")]));
    expect(ofType(list, "retry")[0]?.reason).toMatch(/server_error: The model crashed/);
    expect(doneOf(list).message.text).toBe("fine now");

    const failed = errorOf(await events(client, request([userText("again")])));
    expect(failed.error.kind).toBe("bad_request");
    expect(failed.error.attempts).toBe(1);
    expect(failed.error.message).toMatch(/invalid_prompt: Not allowed/);
  });

  it("the scripted server refuses a reasoning item that comes back changed, as OpenAI does", async () => {
    model = await startScriptedModel({ script: [{ reasoning: "Think.", code: "x = 1" }, { text: "never" }] });
    const client = clientFor(model, "openai-responses", true, { model: "o3" });
    const messages: Message[] = [userText("go")];
    const done = doneOf(await events(client, request(messages)));
    const items = (done.message.reasoning?.items ?? []).map((i) => ({ ...i, encrypted_content: "forged" }));
    messages.push({ ...done.message, reasoning: { format: "openai-responses", items } });
    messages.push({ role: "tool", toolCallId: "call_1", content: [{ type: "text", text: "" }] });
    const failed = errorOf(await events(client, request(messages)));
    expect(failed.error.kind).toBe("bad_request");
    expect(failed.error.message).toMatch(/could not be verified/);
  });

  it("leaves out the reasoning of an answer cut off before it said anything", async () => {
    model = await startScriptedModel({
      script: [{ reasoning: "Long thought.", text: "abc" }, { text: "ok" }],
    });
    const client = clientFor(model, "openai-responses", true, { model: "o3" });
    const messages: Message[] = [userText("go")];
    const cut = doneOf(await events(client, request(messages, { maxOutputTokens: 0 })));
    expect(cut.stopReason).toBe("max_output_tokens");
    expect(cut.message.text).toBe("");
    expect(cut.message.reasoning?.items).toHaveLength(1);
    messages.push(cut.message, userText("continue"));
    expect(doneOf(await events(client, request(messages))).message.text).toBe("ok");
    expect(inputOf(model, 1).map((x) => x.role ?? x.type)).toEqual(["user", "user"]);
  });

  it("leaves out reasoning items that came without encrypted content", async () => {
    model = await startScriptedModel({ script: [{ reasoning: "Unseen.", code: "x = 1" }, { text: "ok" }] });
    // Not taken for a reasoning model, so encrypted content is not asked for and the item has none.
    const client = clientFor(model, "openai-responses", true, { model: "my-reasoner" });
    const messages: Message[] = [userText("go")];
    const first = doneOf(await events(client, request(messages)));
    expect(first.message.reasoning?.items[0]?.encrypted_content).toBeUndefined();
    messages.push(first.message, {
      role: "tool",
      toolCallId: "call_1",
      content: [{ type: "text", text: "" }],
    });
    expect(doneOf(await events(client, request(messages))).message.text).toBe("ok");
    expect(inputOf(model, 1).map((x) => x.type)).toEqual([
      "message",
      "function_call",
      "function_call_output",
    ]);
  });

  it("retries a stream that ends without response.completed", async () => {
    model = await startScriptedModel({ script: [{ unfinished: true, text: "half" }, { text: "whole" }] });
    const list = await events(clientFor(model, "openai-responses", true), request([userText("hi")]));
    expect(ofType(list, "retry")[0]?.reason).toMatch(/before response.completed/);
    expect(doneOf(list).message.text).toBe("whole");
  });

  it("maps --thinking to reasoning.effort for reasoning models only, none for off", async () => {
    model = await startScriptedModel({ script: [{ text: "a" }], onExhausted: "repeat-last" });
    for (const [name, thinking] of [
      ["o4-mini", "high"],
      ["gpt-5", "off"],
      ["gpt-4o", "low"],
    ] as const) {
      doneOf(
        await events(clientFor(model, "openai-responses", true, { model: name, thinking }), request([])),
      );
    }
    doneOf(
      await events(
        clientFor(model, "openai-responses", true, {
          model: "gpt-5",
          thinking: "low",
          reasoningSummary: true,
        }),
        request([]),
      ),
    );
    const bodies = model.requests.map((r) => r.body as Item);
    expect(bodies[0]?.reasoning).toEqual({ effort: "high" });
    expect(bodies[3]?.reasoning).toEqual({ effort: "low", summary: "auto" });
    expect(bodies[1]?.reasoning).toBeUndefined();
    expect(bodies[1]?.include).toEqual(["reasoning.encrypted_content"]);
    expect(bodies[2]?.reasoning).toBeUndefined();
    expect(bodies[2]?.include).toBeUndefined();
  });

  it("takes its credentials from the auth hook and refreshes them once after a 401", async () => {
    model = await startScriptedModel({ script: [{ text: "signed in" }], requireApiKey: "fresh-token" });
    const asked: boolean[] = [];
    const client = clientFor(model, "openai-responses", true, {
      apiKey: "never-sent-key",
      auth: async ({ refresh }) => {
        asked.push(refresh);
        return { authorization: `Bearer ${refresh ? "fresh-token" : "stale-token"}` };
      },
    });
    const done = doneOf(await events(client, request([userText("hi")])));
    expect(done.message.text).toBe("signed in");
    expect(asked).toEqual([false, true]);
    expect(model.requests.map((r) => r.headers.authorization)).toEqual([
      "Bearer stale-token",
      "Bearer fresh-token",
    ]);
  });
});

describe("Responses bodies for ChatGPT's Codex backend", () => {
  it("leave out max_output_tokens, which that backend refuses", () => {
    const settings = {
      model: "gpt-5",
      stream: true,
      acceptsImages: true,
      reasoningModel: true,
      maxOutputTokens: 500,
    };
    const body = (baseUrl: string) =>
      JSON.parse(buildResponsesBody(request([userText("hi")]), { ...settings, baseUrl })) as Item;
    expect(body("https://chatgpt.com/backend-api/codex").max_output_tokens).toBeUndefined();
    expect(body("https://api.openai.com/v1").max_output_tokens).toBe(500);
  });
});

describe("the scripted server's view of a Responses request", () => {
  it("names the asking agent's task and counts each answer's run of items as one turn", () => {
    const input = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "count the files" }] },
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Counting." }] },
      { type: "function_call", call_id: "call_1", name: "ipython", arguments: "{}" },
      { type: "function_call_output", call_id: "call_1", output: "3" },
      { type: "function_call", call_id: "call_2", name: "ipython", arguments: "{}" },
      { type: "function_call_output", call_id: "call_2", output: "4" },
    ];
    expect(whoAsks({ body: { input } })).toEqual({ task: "count the files", turn: 2 });
  });
});
