import { afterEach, describe, expect, it } from "vitest";
import {
  COMPACTION_NOTICE,
  compactionCut,
  compactMessages,
  contextWindow,
  estimateMessagesTokens,
  estimateTokens,
  needsCompaction,
} from "../../src/agent/compaction/messages.js";
import { collectResponse, isModelError } from "../../src/llm/index.js";
import type { Message, ModelClient } from "../../src/llm/types.js";
import { type ScriptedModel, type ScriptItem, startScriptedModel } from "../../src/scripted/index.js";
import { clientFor, request, userText } from "../llm/helpers.js";

const GOAL = "Make `pytest tests/test_parse.py` pass without editing the tests (GOAL-7f3a)";

/** A task and `turns` model turns, each one ipython call with a sizeable output. */
function longConversation(turns: number, extraUser = false): Message[] {
  const messages: Message[] = [userText(GOAL)];
  for (let i = 1; i <= turns; i++) {
    if (extraUser && i % 3 === 0) messages.push(userText(`[message from parent]\nnote ${i}`));
    messages.push({
      role: "assistant",
      text: `Step ${i}: looking at the parser.`,
      toolCalls: [
        { id: `call_${i}`, name: "ipython", arguments: JSON.stringify({ code: `print('turn-${i}-code')` }) },
      ],
    });
    messages.push({
      role: "tool",
      toolCallId: `call_${i}`,
      content: [{ type: "text", text: `turn-${i}-output ${"traceback line\n".repeat(150)}` }],
    });
  }
  return messages;
}

function checkPairs(kept: Message[]): void {
  expect(kept[0]?.role).not.toBe("tool");
  const calls = kept.flatMap((m) => (m.role === "assistant" ? m.toolCalls.map((c) => c.id) : []));
  const results = kept.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : []));
  expect(results.sort()).toEqual([...calls].sort());
}

let models: ScriptedModel[] = [];
afterEach(async () => {
  for (const m of models) await m.close();
  models = [];
});
async function scripted(script: ScriptItem[]): Promise<ScriptedModel> {
  const model = await startScriptedModel({ script });
  models.push(model);
  return model;
}

const SUMMARY = "## Goal\nFix the parser.\n\n## Progress so far\nFound the bug in `tokenize`.";

describe("compactionCut", () => {
  it("cuts only at turn boundaries, so kept tool calls keep their results and no result is orphaned", () => {
    const conversations = [longConversation(9, true), longConversation(4)];
    // A turn with two tool calls, then a user message, then a final answer.
    conversations.push([
      ...longConversation(2),
      {
        role: "assistant",
        text: "",
        toolCalls: [
          { id: "a", name: "ipython", arguments: "{}" },
          { id: "b", name: "ipython", arguments: "{}" },
        ],
      },
      { role: "tool", toolCallId: "a", content: [{ type: "text", text: "A" }] },
      { role: "tool", toolCallId: "b", content: [{ type: "text", text: "B" }] },
      userText("and now?"),
      { role: "assistant", text: "done", toolCalls: [] },
    ]);
    for (const messages of conversations) {
      for (let keep = 0; keep <= 12; keep++) {
        const cut = compactionCut(messages, keep);
        const kept = messages.slice(cut);
        checkPairs(kept);
        const turns = kept.filter((m) => m.role === "assistant").length;
        expect(turns).toBeLessThanOrEqual(Math.max(keep, 0));
      }
    }
  });

  it("keeps the user message that opened a kept turn", () => {
    const messages = longConversation(6, true);
    const kept = messages.slice(compactionCut(messages, 4));
    expect(kept[0]).toEqual(userText("[message from parent]\nnote 3"));
  });
});

describe("compactMessages", () => {
  for (const format of ["openai", "anthropic"] as const) {
    it(`summarises the older turns through the model and keeps the last ones verbatim (${format})`, async () => {
      const model = await scripted([{ text: SUMMARY }, { text: "next step" }, { text: "next step" }]);
      const client = clientFor(model, format, true);
      const messages = longConversation(12);
      const result = await compactMessages({
        client,
        messages,
        liveVariables: ["df", "tokens"],
        filesTouched: ["src/parse.py"],
        constraints: ["do not edit tests/"],
      });
      if ("error" in result) throw new Error(result.error);

      // The summary request: no tools, the older turns in it, the kept ones not.
      const body = model.requests[0]?.rawBody ?? "";
      expect(JSON.parse(body).tools).toBeUndefined();
      expect(body).toContain("turn-1-code");
      expect(body).toContain("turn-10-output");
      expect(body).not.toContain("turn-11-code");
      expect(body).toContain("GOAL-7f3a");

      const head = result.messages[0];
      expect(head?.role).toBe("user");
      const text = head?.role === "user" && head.content[0]?.type === "text" ? head.content[0].text : "";
      expect(text.startsWith(COMPACTION_NOTICE)).toBe(true);
      expect(text).toContain(`## Goal\n${GOAL}`);
      expect(text).toContain("- do not edit tests/");
      expect(text).toContain("- `df`\n- `tokens`");
      expect(text).toContain("- src/parse.py");
      expect(text).toContain("### Progress so far\nFound the bug in `tokenize`.");
      expect(result.messages.slice(1)).toEqual(messages.slice(-4));
      checkPairs(result.messages.slice(1));
      expect(result.summary).toBe(SUMMARY);
      expect(result.summarized).toBe(21);
      expect(result.kept).toBe(4);
      expect(result.tokensAfter).toBeLessThan(result.tokensBefore / 3);
      expect(result.usage.inputTokens).toBeGreaterThan(0);

      // The request after compaction is smaller and still states the goal.
      const full = await collectResponse(client.stream(request(messages)));
      const compacted = await collectResponse(client.stream(request(result.messages)));
      if (isModelError(full) || isModelError(compacted)) throw new Error("scripted model failed");
      expect(compacted.requestBytes).toBeLessThan(full.requestBytes / 3);
      expect(model.requests[2]?.rawBody).toContain("GOAL-7f3a");
    });
  }

  it("names a kernel with thousands of variables by a bounded list, so the summary still shrinks the prompt", async () => {
    const model = await scripted([{ text: SUMMARY }]);
    const names = Array.from({ length: 3000 }, (_, i) => `var_number_${i}`);
    const messages = longConversation(6);
    const result = await compactMessages({
      client: clientFor(model, "openai", true),
      messages,
      liveVariables: names,
      filesTouched: [],
    });
    if ("error" in result) throw new Error(result.error);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    const head = result.messages[0];
    const text = head?.role === "user" && head.content[0]?.type === "text" ? head.content[0].text : "";
    expect(text).toContain("- `var_number_0`\n");
    expect(text).toContain("- `var_number_99`\n");
    expect(text).not.toContain("`var_number_100`");
    expect(text).toContain("and 2900 more");
    // The request for the summary names them no more than the summary does.
    expect(model.requests[0]?.rawBody).not.toContain("var_number_100,");
  });

  it("keeps the goal of an earlier summary when compacting again", async () => {
    const model = await scripted([{ text: SUMMARY }, { text: "## Goal\nsecond" }]);
    const client = clientFor(model, "openai", false);
    const first = await compactMessages({
      client,
      messages: longConversation(6),
      liveVariables: [],
      filesTouched: [],
    });
    if ("error" in first) throw new Error(first.error);
    const more = [...first.messages, ...longConversation(5).slice(1)];
    const second = await compactMessages({ client, messages: more, liveVariables: [], filesTouched: [] });
    if ("error" in second) throw new Error(second.error);
    const head = second.messages[0];
    const text = head?.role === "user" && head.content[0]?.type === "text" ? head.content[0].text : "";
    expect(text).toContain(`## Goal\n${GOAL}\n\n## Constraints`);
    expect(text.split(COMPACTION_NOTICE).length).toBe(2);
  });

  it("keeps the summary request within the model's window", async () => {
    const model = await scripted([{ text: SUMMARY }]);
    const messages = longConversation(200);
    const result = await compactMessages({
      client: clientFor(model, "openai", true),
      messages,
      liveVariables: [],
      filesTouched: [],
      window: 8_192,
    });
    expect("error" in result).toBe(false);
    const body = model.requests[0]?.rawBody ?? "";
    expect(estimateTokens(body)).toBeLessThan(8_192);
    expect(body).toContain("GOAL-7f3a");
    expect(body).toContain("turn-198-code");
  });

  it("reports a model error, an empty summary, and a conversation too short to compact", async () => {
    const model = await scripted([{ status: 400 }, { text: "  " }]);
    const client: ModelClient = clientFor(model, "openai", true);
    const base = { client, liveVariables: [], filesTouched: [] };
    const failed = await compactMessages({ ...base, messages: longConversation(5) });
    expect(failed).toMatchObject({ error: expect.stringMatching(/^compaction failed: /) });
    expect("modelError" in failed && failed.modelError?.kind).toBe("bad_request");
    const empty = await compactMessages({ ...base, messages: longConversation(5) });
    expect(empty).toEqual({ error: "compaction failed: the model returned an empty summary" });
    const short = await compactMessages({ ...base, messages: longConversation(2) });
    expect(short).toMatchObject({ error: expect.stringMatching(/nothing to compact/) });
    expect(model.requests.length).toBe(2);
  });

  it("skips a conversation a summary would not shrink, without a model call", async () => {
    const model = await scripted([{ text: SUMMARY }]);
    const client: ModelClient = clientFor(model, "openai", true);
    // A short task, one small cell and an answer: what a summary replaces is less than its own headings.
    const messages: Message[] = [
      userText("print 2+2"),
      {
        role: "assistant",
        text: "",
        toolCalls: [{ id: "c1", name: "ipython", arguments: '{"code":"2+2"}' }],
      },
      { role: "tool", toolCallId: "c1", content: [{ type: "text", text: "4" }] },
      { role: "assistant", text: "4", toolCalls: [] },
    ];
    const result = await compactMessages({
      client,
      messages,
      liveVariables: [],
      filesTouched: [],
      keepLastTurns: 1,
    });
    expect(result).toMatchObject({ skipped: true, error: expect.stringMatching(/^not compacted: .*short/) });
    expect("usage" in result && result.usage).toBeFalsy();
    expect(model.requests).toHaveLength(0);
  });

  it("discards a summary longer than what it replaces, and reports what it cost", async () => {
    const model = await scripted([{ text: `## Progress so far\n${"a long-winded summary ".repeat(400)}` }]);
    const client: ModelClient = clientFor(model, "openai", true);
    const messages = longConversation(3);
    const result = await compactMessages({
      client,
      messages,
      liveVariables: [],
      filesTouched: [],
      keepLastTurns: 1,
    });
    expect(result).toMatchObject({ skipped: true, error: expect.stringMatching(/^not compacted/) });
    expect("usage" in result && result.usage?.outputTokens).toBeGreaterThan(0);
    expect(model.requests).toHaveLength(1);
  });
});

describe("context windows", () => {
  it("looks models up in the catalog, with overrides first and a default for unknown ones", () => {
    expect(contextWindow("gpt-4o-2024-08-06")).toMatchObject({ tokens: 128_000, source: "catalog" });
    expect(contextWindow("gpt-4.1-mini").tokens).toBe(1_047_576);
    // A dated snapshot of a known model is that model; GPT-5's input limit is below its window.
    expect(contextWindow("gpt-4-0613")).toMatchObject({ tokens: 8_192, matched: "gpt-4" });
    expect(contextWindow("openai/gpt-5-mini").tokens).toBe(272_000);
    expect(contextWindow("o3-mini").tokens).toBe(200_000);
    expect(contextWindow("claude-sonnet-4-5-20250929").tokens).toBe(200_000);
    // A model served elsewhere (an Ollama tag of a model another provider lists) keeps its window.
    expect(contextWindow("qwen3-coder:30b").tokens).toBe(262_144);
    // Local families the catalog does not list get the conservative default, not a guess.
    expect(contextWindow("qwen3:8b")).toEqual({ tokens: 32_768, source: "default" });
    expect(contextWindow("my-finetune")).toEqual({ tokens: 32_768, source: "default" });
    expect(contextWindow("qwen3:8b", { qwen3: 40_960 })).toMatchObject({
      tokens: 40_960,
      source: "override",
    });
    expect(contextWindow("gpt-4o", { "gpt-4o": 64_000 }).tokens).toBe(64_000);
    expect(contextWindow("scripted", { scripted: 4_096 }).tokens).toBe(4_096);
  });

  it("estimates tokens and says when to compact", () => {
    expect(estimateTokens("abcdefgh")).toBe(2);
    expect(estimateMessagesTokens([userText("x".repeat(400))])).toBe(104);
    expect(needsCompaction(79_999, 100_000)).toBe(false);
    expect(needsCompaction(80_000, 100_000)).toBe(true);
    expect(needsCompaction(50_000, 100_000, 0.5)).toBe(true);
    expect(() => needsCompaction(1, 100, 0)).toThrow(RangeError);
  });
});
