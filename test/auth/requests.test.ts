// What each subscription's model requests carry, on the scripted model over real HTTP: the headers its API
// expects in place of an API key, Claude's identity block, and no key header at all.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { subscriptionClientOptions } from "../../src/llm/auth/client-options.js";
import { storeTokens } from "../../src/llm/auth/index.js";
import { collectResponse } from "../../src/llm/complete.js";
import { createModelClient } from "../../src/llm/index.js";
import type { ModelRequest } from "../../src/llm/types.js";
import { type ScriptedModel, startScriptedModel } from "../../src/scripted/index.js";
import { tempDir } from "../support/cli.js";

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function rig(token: string): Promise<{ model: ScriptedModel; home: string }> {
  const model = await startScriptedModel({
    requireApiKey: token,
    script: [{ text: "one" }, { text: "two" }],
  });
  const dir = tempDir("relm-req-");
  cleanup.push(() => model.close(), dir.cleanup);
  return { model, home: join(dir.path, "home") };
}

const tokens = (access: string, accountId?: string) => ({
  access,
  refresh: `refresh-${access}`,
  expires: Date.now() + 3_600_000,
  ...(accountId ? { accountId } : {}),
});

const ask = (text: string): ModelRequest => ({
  system: "You are relm.",
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  tools: [],
});

describe("subscription requests", () => {
  it("ChatGPT: Bearer token, the account id and the Responses beta header, on the Responses API", async () => {
    const { model, home } = await rig("chatgpt-access");
    await storeTokens(home, "chatgpt", tokens("chatgpt-access", "acct-42"));
    const client = createModelClient({
      provider: "openai-responses",
      baseUrl: model.openaiBaseUrl,
      model: "gpt-5-codex",
      ...subscriptionClientOptions(home, { id: "chatgpt" }),
    });
    const answer = await collectResponse(client.stream({ ...ask("hi"), maxOutputTokens: 1000 }));
    expect(answer).toMatchObject({ message: { text: "one" } });
    // The Codex backend's own rules: nothing stored, no output cap.
    expect(model.requests[0]?.body).toMatchObject({ store: false, instructions: "You are relm." });
    expect(model.requests[0]?.body).not.toHaveProperty("max_output_tokens");
    const headers = model.requests[0]?.headers ?? {};
    expect(model.requests[0]?.path).toBe("/v1/responses");
    expect(headers.authorization).toBe("Bearer chatgpt-access");
    expect(headers["chatgpt-account-id"]).toBe("acct-42");
    expect(headers["openai-beta"]).toBe("responses=experimental");
  });

  it("Copilot: the Copilot token with the editor headers; a person's turn and the agent's follow-up told apart", async () => {
    const { model, home } = await rig("copilot-token");
    await storeTokens(home, "copilot", tokens("copilot-token"));
    const client = createModelClient({
      provider: "openai",
      baseUrl: model.openaiBaseUrl,
      model: "gpt-4.1",
      ...subscriptionClientOptions(home, { id: "copilot" }),
    });
    await collectResponse(client.stream(ask("hi")));
    const followUp: ModelRequest = {
      ...ask("hi"),
      messages: [
        ...ask("hi").messages,
        {
          role: "assistant",
          text: "",
          toolCalls: [{ id: "c1", name: "ipython", arguments: '{"code":"1"}' }],
        },
        { role: "tool", toolCallId: "c1", content: [{ type: "text", text: "1" }] },
      ],
    };
    await collectResponse(client.stream(followUp));
    const [first, second] = model.requests.map((r) => r.headers);
    expect(first?.authorization).toBe("Bearer copilot-token");
    expect(first?.["copilot-integration-id"]).toBe("vscode-chat");
    expect(first?.["editor-version"]).toMatch(/^vscode\//);
    expect(first?.["x-initiator"]).toBe("user");
    expect(second?.["x-initiator"]).toBe("agent");
  });

  it("Claude: Bearer token and the OAuth beta, no x-api-key, the identity line as the first system block", async () => {
    const { model, home } = await rig("claude-access");
    await storeTokens(home, "claude", tokens("claude-access"));
    const client = createModelClient({
      provider: "anthropic",
      baseUrl: model.anthropicBaseUrl,
      model: "claude-sonnet-4-5",
      apiKey: "sk-ant-should-not-be-sent",
      ...subscriptionClientOptions(home, { id: "claude" }),
    });
    await collectResponse(client.stream(ask("hi")));
    await collectResponse(client.stream(ask("hi again")));
    const [first, second] = model.requests;
    expect(first?.headers.authorization).toBe("Bearer claude-access");
    expect(first?.headers["x-api-key"]).toBeUndefined();
    expect(first?.headers["anthropic-beta"]).toContain("oauth-2025-04-20");
    const system = (first?.body as { system: { text: string }[] } | undefined)?.system ?? [];
    expect(system.map((b) => b.text)).toEqual([
      "You are Claude Code, Anthropic's official CLI for Claude.",
      "You are relm.",
    ]);
    // The preamble is constant: successive requests keep a byte-identical prefix.
    const prefix = (first?.rawBody ?? "").indexOf('"messages"');
    expect(second?.rawBody.slice(0, prefix)).toBe(first?.rawBody.slice(0, prefix));
  });
});
