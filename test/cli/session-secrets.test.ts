// sessionSecrets: every key and token relm holds at a session's start, whichever provider is active.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sessionSecrets } from "../../src/cli/session-secrets.js";
import { resolveConfig } from "../../src/config/config.js";
import type { McpServer } from "../../src/mcp/index.js";
import { tempDir } from "../support/cli.js";

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

function home(files: { config?: unknown; auth?: unknown }): string {
  const dir = tempDir("relm-secrets-");
  cleanup.push(dir.cleanup);
  if (files.config) writeFileSync(join(dir.path, "config.json"), JSON.stringify(files.config));
  if (files.auth) writeFileSync(join(dir.path, "auth.json"), JSON.stringify(files.auth));
  return dir.path;
}

const expires = Date.now() + 3_600_000;

describe("sessionSecrets", () => {
  it("gathers every provider's keys, config.json's keys and every subscription's tokens, not only the active ones", () => {
    const dir = home({
      config: {
        provider: "anthropic",
        apiKey: "sk-ant-config-key-000111",
        subscription: "claude",
        search: { provider: "tavily", apiKey: "tvly-search-key-222333" },
      },
      auth: {
        version: 1,
        subscriptions: {
          claude: { access: "claude-access-444555", refresh: "claude-refresh-666777", expires },
          chatgpt: { access: "chatgpt-access-888999", refresh: "chatgpt-refresh-000aaa", expires },
          copilot: { access: "copilot-access-bbbccc", refresh: "gho_copilot-github-ddd", expires },
        },
      },
    });
    const env = {
      RELM_HOME: dir,
      // The session uses OpenAI with the environment's key: no subscription, not config.json's key.
      RELM_PROVIDER: "openai",
      RELM_API_KEY: "sk-relm-env-key-eeefff",
      OPENAI_API_KEY: " sk-openai-padded-key-ggghhh\n",
      GEMINI_API_KEY: "gemini-env-key-iiijjj",
      VLLM_API_KEY: "vllm-env-key-kkklll",
    };
    const config = resolveConfig(env);
    expect(config.model.subscription).toBeUndefined();
    expect(config.model.apiKey).toBe("sk-relm-env-key-eeefff");
    const server: McpServer = {
      name: "docs",
      scope: "user",
      source: join(dir, "mcp.json"),
      transport: "http",
      args: [],
      env: {},
      url: "http://127.0.0.1:1/mcp",
      headers: { authorization: "Bearer mcp-bearer-token-mmmnnn" },
    };
    const secrets = sessionSecrets({ env, config, mcpServers: [server] });
    expect(secrets).toEqual(
      expect.arrayContaining([
        "sk-ant-config-key-000111",
        "tvly-search-key-222333",
        "claude-access-444555",
        "claude-refresh-666777",
        "chatgpt-access-888999",
        "chatgpt-refresh-000aaa",
        "copilot-access-bbbccc",
        "gho_copilot-github-ddd",
        "sk-relm-env-key-eeefff",
        // As set, and as sent (trimmed).
        " sk-openai-padded-key-ggghhh\n",
        "sk-openai-padded-key-ggghhh",
        "gemini-env-key-iiijjj",
        "vllm-env-key-kkklll",
        "mcp-bearer-token-mmmnnn",
      ]),
    );
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it("leaves out values too short to be a key, and endpoints", () => {
    const dir = home({
      config: { apiKey: "short", search: { provider: "brave", apiKey: "k" } },
      auth: {
        version: 1,
        subscriptions: { claude: { access: "x", refresh: "", expires } },
      },
    });
    const env = {
      RELM_HOME: dir,
      RELM_API_KEY: "1234567",
      GROQ_API_KEY: "",
      OPENAI_BASE_URL: "https://api.example.test/v1",
    };
    const secrets = sessionSecrets({ env, config: resolveConfig(env) });
    expect(secrets).toEqual([]);
  });

  it("works without config.json or auth.json, and with a damaged auth.json", () => {
    const dir = home({});
    writeFileSync(join(dir, "auth.json"), "{ not json");
    const env = { RELM_HOME: dir, ANTHROPIC_API_KEY: "sk-ant-only-env-key-999" };
    expect(sessionSecrets({ env, config: resolveConfig(env) })).toEqual(["sk-ant-only-env-key-999"]);
  });
});
