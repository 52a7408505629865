// Which wire format an OpenAI endpoint gets: the Responses API on OpenAI's own endpoint, chat
// completions on every other OpenAI-compatible server, and either when asked for by name.
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/config.js";
import { tempDir } from "../support/cli.js";

const dirs: { cleanup(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

function env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const home = tempDir("relm-wire-");
  dirs.push(home);
  return { RELM_HOME: home.path, RELM_MODEL: "gpt-5", ...extra };
}

describe("the wire format of OpenAI endpoints", () => {
  it("OpenAI's own endpoint speaks the Responses API by default", () => {
    const config = resolveConfig(env({ OPENAI_API_KEY: "sk-1" }));
    expect(config.model).toMatchObject({
      provider: "openai-responses",
      baseUrl: "https://api.openai.com/v1",
    });
    expect(resolveConfig(env({}), { provider: "openai" }).model.provider).toBe("openai-responses");
  });

  it("other OpenAI-compatible servers keep chat completions", () => {
    const local = resolveConfig(env({ RELM_BASE_URL: "http://127.0.0.1:11434/v1" }));
    expect(local.model.provider).toBe("openai");
    expect(resolveConfig(env({}), { provider: "openrouter" }).model.provider).toBe("openai");
  });

  it("openai-responses and openai-chat choose the format on any endpoint", () => {
    const base = { RELM_BASE_URL: "http://127.0.0.1:8080/v1" };
    expect(resolveConfig(env(base), { provider: "openai-responses" }).model.provider).toBe(
      "openai-responses",
    );
    expect(resolveConfig(env({}), { provider: "openai-chat" }).model.provider).toBe("openai");
    expect(resolveConfig(env({ RELM_PROVIDER: "openai-responses" })).model).toMatchObject({
      provider: "openai-responses",
      baseUrl: "https://api.openai.com/v1",
    });
  });

  it("--thinking is checked and resolved with the configuration", () => {
    expect(resolveConfig(env({ RELM_THINKING: "high" })).model.thinking).toBe("high");
    expect(resolveConfig(env({ RELM_THINKING: "high" }), { thinking: "low" }).model.thinking).toBe("low");
    expect(() => resolveConfig(env({}), { thinking: "max" })).toThrow(
      '--thinking must be one of off, low, medium, high, got "max"',
    );
    expect(() => resolveConfig(env({ RELM_THINKING: "on" }))).toThrow(/RELM_THINKING must be one of/);
  });
});
