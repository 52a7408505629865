// Anthropic extended thinking and `--thinking` on the other wire formats, against the scripted server
// over real HTTP. The server signs each thinking block and refuses a request whose thinking came back
// altered, reordered or missing before tool_use, as Anthropic does.
import { afterEach, describe, expect, it } from "vitest";
import type { Message, ThinkingLevel } from "../../src/llm/types.js";
import { type ScriptedModel, startScriptedModel } from "../../src/scripted/index.js";
import { clientFor, doneOf, errorOf, events, ofType, request, userText } from "./helpers.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

type Json = Record<string, unknown> & { messages: { role: string; content: Record<string, unknown>[] }[] };
const bodyOf = (m: ScriptedModel, i: number) => m.requests[i]?.body as Json;

async function toolLoop(
  m: ScriptedModel,
  stream: boolean,
  thinking: ThinkingLevel | undefined,
  turns: number,
) {
  const client = clientFor(m, "anthropic", stream, { model: "claude-sonnet-4-5", thinking });
  const messages: Message[] = [userText("Compute something.")];
  const thought: string[] = [];
  for (let i = 0; i < turns; i++) {
    const list = await events(client, request(messages));
    for (const e of ofType(list, "reasoning")) thought.push(e.delta);
    const done = doneOf(list);
    messages.push(done.message);
    for (const call of done.message.toolCalls) {
      messages.push({ role: "tool", toolCallId: call.id, content: [{ type: "text", text: `out ${i}` }] });
    }
  }
  return { messages, thought: thought.join("") };
}

describe.each([true, false])("Anthropic extended thinking (stream %s)", (stream) => {
  it("round-trips signed thinking and redacted_thinking blocks through a tool loop", async () => {
    model = await startScriptedModel({
      script: [
        { reasoning: "First set x.", redactedThinking: "opaque-bytes", code: "x = 1" },
        { reasoning: "Then print it.", code: "print(x)" },
        { text: "x is 1." },
      ],
    });
    const { messages, thought } = await toolLoop(model, stream, "medium", 3);
    expect(model.problems).toEqual([]);
    // With thinking on the model always thinks; the script's last step left it to the server's default.
    expect(thought).toBe("First set x.Then print it.Considering the next step.");
    const first = messages[1];
    if (first?.role !== "assistant") throw new Error("expected the first answer");
    expect(first.reasoning).toEqual({
      format: "anthropic",
      items: [
        { type: "thinking", thinking: "First set x.", signature: expect.any(String) },
        { type: "redacted_thinking", data: "opaque-bytes" },
      ],
    });

    const body = bodyOf(model, 0);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    // The thinking budget comes on top of relm's usual 16 384 (within the model's 64 000).
    expect(body.max_tokens).toBe(16_384 + 8192);
    expect(body.temperature).toBeUndefined();
    // Later requests: each answer's thinking first, exactly as received, then its tool_use.
    const third = bodyOf(model, 2);
    const answer = third.messages[1]?.content ?? [];
    expect(answer.map((b) => b.type)).toEqual(["thinking", "redacted_thinking", "tool_use"]);
    expect(answer[0]).toEqual(first.reasoning?.items[0]);
    const raw = model.requests[2]?.rawBody ?? "";
    expect(raw).toContain(JSON.stringify(first.reasoning?.items[0]));
    expect(third.messages[3]?.content.map((b) => b.type)).toEqual(["thinking", "tool_use"]);
  });

  it("--thinking off sends no thinking and gets none back", async () => {
    model = await startScriptedModel({ script: [{ reasoning: "unused", code: "x = 1" }, { text: "done" }] });
    const { messages } = await toolLoop(model, stream, "off", 2);
    expect(model.problems).toEqual([]);
    for (const r of model.requests) {
      expect((r.body as Json).thinking).toBeUndefined();
      expect(r.rawBody).not.toContain('"thinking"');
    }
    expect(messages.some((m) => m.role === "assistant" && m.reasoning)).toBe(false);
  });
});

describe("thinking settings", () => {
  it("caps Anthropic's thinking budget below max_tokens, and leaves it out when too little is left", async () => {
    model = await startScriptedModel({ script: [{ text: "a" }, { text: "b" }, { text: "c" }] });
    const ask = (maxOutputTokens: number) =>
      events(
        clientFor(model as ScriptedModel, "anthropic", true, {
          model: "claude-opus-4-1",
          thinking: "high",
          maxOutputTokens: 64_000,
        }),
        request([userText("hi")], { maxOutputTokens }),
      );
    doneOf(await ask(64_000));
    doneOf(await ask(2000));
    doneOf(await ask(1200));
    const budgets = model.requests.map((r) => (r.body as Json).thinking);
    expect(budgets).toEqual([
      { type: "enabled", budget_tokens: 24_576 },
      { type: "enabled", budget_tokens: 1500 },
      undefined,
    ]);
  });

  it("without a budget's cap, max_tokens grows by the thinking budget within the model's output limit", async () => {
    model = await startScriptedModel({ script: [{ text: "a" }], onExhausted: "repeat-last" });
    for (const name of ["claude-opus-4-1", "a-claude-relm-does-not-know"]) {
      const client = clientFor(model, "anthropic", true, { model: name, thinking: "high" });
      doneOf(await events(client, request([userText("hi")])));
    }
    const heads = model.requests.map((r) => {
      const body = r.body as Json;
      return [body.max_tokens, (body.thinking as { budget_tokens: number }).budget_tokens];
    });
    // Opus 4.1 writes at most 32 000 tokens; an unknown model keeps relm's usual 16 384.
    expect(heads).toEqual([
      [32_000, 24_000],
      [16_384, 12_288],
    ]);
  });

  it("the server refuses a thinking block whose text was changed (the signature no longer verifies)", async () => {
    model = await startScriptedModel({ script: [{ reasoning: "Plan.", code: "x = 1" }, { text: "never" }] });
    const client = clientFor(model, "anthropic", true, { thinking: "low" });
    const messages: Message[] = [userText("go")];
    const done = doneOf(await events(client, request(messages)));
    const items = (done.message.reasoning?.items ?? []).map((b) => ({ ...b, thinking: "Another plan." }));
    messages.push({ ...done.message, reasoning: { format: "anthropic", items } });
    messages.push({ role: "tool", toolCallId: done.message.toolCalls[0]?.id ?? "", content: [] });
    const failed = errorOf(await events(client, request(messages)));
    expect(failed.error.kind).toBe("bad_request");
    expect(failed.error.message).toMatch(/Invalid `signature`/);
  });

  it("a thinking block without a signature is left out and said so; the request is accepted", async () => {
    model = await startScriptedModel({
      script: [
        { reasoning: "Plan.", code: "x = 1" },
        { reasoning: "Then y.", code: "y = 2" },
        { text: "done" },
        { text: "still done" },
      ],
    });
    const client = clientFor(model, "anthropic", true, { thinking: "low" });
    const messages: Message[] = [userText("go")];
    const first = doneOf(await events(client, request(messages)));
    // The first answer's block lost its signature (a stream cut before signature_delta, a server that
    // does not sign, or a journal that redacted its text): it can never verify.
    const unsigned = (first.message.reasoning?.items ?? []).map((b) => ({ ...b, signature: "" }));
    messages.push({ ...first.message, reasoning: { format: "anthropic", items: unsigned } });
    messages.push({ role: "tool", toolCallId: first.message.toolCalls[0]?.id ?? "", content: [] });
    // It is the answer being continued: with nothing to start it, this request goes without thinking.
    const second = await events(client, request(messages));
    const said = ofType(second, "notice").map((e) => e.message);
    expect(said).toEqual([
      expect.stringMatching(
        /^1 thinking block\(s\) left out of the request to the model: they carry no signature .*; this request goes without thinking/,
      ),
    ]);
    const done = doneOf(second);
    expect(model.problems).toEqual([]);
    const body = bodyOf(model, 1);
    expect(body.thinking).toBeUndefined();
    expect(body.messages[1]?.content.map((b) => b.type)).toEqual(["tool_use"]);

    // The answer it got was made without thinking, so the tool loop goes on without it (Anthropic
    // refuses thinking in the middle of a tool loop whose last answer has none).
    messages.push(done.message);
    messages.push({ role: "tool", toolCallId: done.message.toolCalls[0]?.id ?? "", content: [] });
    const third = doneOf(await events(client, request(messages)));
    expect(bodyOf(model, 2).thinking).toBeUndefined();
    // A new turn thinks again; the unsigned block stays out.
    messages.push(third.message, userText("and now?"));
    const fourth = await events(client, request(messages));
    expect(ofType(fourth, "notice").map((e) => e.message)).toEqual([
      expect.stringMatching(/^1 thinking block\(s\) left out .*redaction of a secret\)$/),
    ]);
    doneOf(fourth);
    expect(model.problems).toEqual([]);
    expect(bodyOf(model, 3).thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
  });

  it("chat completions get reasoning_effort only for OpenAI reasoning models", async () => {
    model = await startScriptedModel({ script: [{ text: "a" }, { text: "b" }, { text: "c" }] });
    for (const [name, thinking] of [
      ["o3", "low"],
      ["openai/gpt-5", "off"],
      ["llama3.1", "high"],
    ] as const) {
      doneOf(await events(clientFor(model, "openai", true, { model: name, thinking }), request([])));
    }
    expect(model.requests.map((r) => (r.body as Record<string, unknown>).reasoning_effort)).toEqual([
      "low",
      undefined,
      undefined,
    ]);
  });
});
