// Which endpoint a saved subscription resolves to, and what sets it aside.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/config.js";
import { tempDir } from "../support/cli.js";

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

function home(config: Record<string, unknown>): string {
  const dir = tempDir("relm-subcfg-");
  cleanup.push(dir.cleanup);
  mkdirSync(dir.path, { recursive: true });
  writeFileSync(join(dir.path, "config.json"), JSON.stringify(config));
  return dir.path;
}

describe("subscription in the configuration", () => {
  it("uses the subscription's API and wire format, and no API key even when one is in the environment", () => {
    const h = home({ subscription: "claude", model: "claude-sonnet-4-5", apiKey: "sk-saved" });
    const m = resolveConfig({ RELM_HOME: h, ANTHROPIC_API_KEY: "sk-ant-env" }).model;
    expect(m).toMatchObject({
      provider: "anthropic",
      baseUrl: "https://api.anthropic.com",
      subscription: { id: "claude" },
    });
    expect(m.apiKey).toBeUndefined();
    const chatgpt = resolveConfig({ RELM_HOME: h, RELM_SUBSCRIPTION: "chatgpt" }).model;
    expect(chatgpt).toMatchObject({
      provider: "openai-responses",
      baseUrl: "https://chatgpt.com/backend-api/codex",
    });
    const copilot = resolveConfig({ RELM_HOME: h, RELM_SUBSCRIPTION: "copilot" }).model;
    expect(copilot).toMatchObject({ provider: "openai", baseUrl: "https://api.githubcopilot.com" });
  });

  it("an explicit base URL moves the API; the OAuth endpoints move by variable or oauthUrls", () => {
    const h = home({ subscription: "claude", oauthUrls: { claude: "http://127.0.0.1:9/auth/" } });
    const m = resolveConfig({ RELM_HOME: h, RELM_BASE_URL: "http://127.0.0.1:8/" }).model;
    expect(m.baseUrl).toBe("http://127.0.0.1:8");
    expect(m.subscription?.oauthBase).toBe("http://127.0.0.1:9/auth");
    const env = resolveConfig({ RELM_HOME: h, RELM_CLAUDE_OAUTH_URL: "http://127.0.0.1:7" }).model;
    expect(env.subscription?.oauthBase).toBe("http://127.0.0.1:7");
  });

  it("--provider, RELM_PROVIDER or RELM_SUBSCRIPTION=none set it aside; an unknown name is a config error", () => {
    const h = home({ subscription: "claude", model: "m" });
    expect(resolveConfig({ RELM_HOME: h }, { provider: "openai" }).model.subscription).toBeUndefined();
    expect(resolveConfig({ RELM_HOME: h, RELM_PROVIDER: "openai" }).model.subscription).toBeUndefined();
    expect(resolveConfig({ RELM_HOME: h, RELM_SUBSCRIPTION: "none" }).model.subscription).toBeUndefined();
    expect(() => resolveConfig({ RELM_HOME: h, RELM_SUBSCRIPTION: "claud" })).toThrow(
      'subscription "claud" is not known; use one of claude, chatgpt, copilot (or "none")',
    );
    expect(() => resolveConfig({ RELM_HOME: home({ subscription: "gemini" }) })).toThrow(
      /subscription must be/,
    );
  });
});
