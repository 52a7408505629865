// Which wire format an OpenAI endpoint gets: the Responses API on OpenAI's own endpoint, chat
// completions on every other OpenAI-compatible server, and either when asked for by name.
import { afterEach, describe, expect, it } from "vitest";
import { endpointName, resolveConfig } from "../../src/config/config.js";
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

describe("the endpoint as a person reads it (the session header, the status line)", () => {
  const named = (extra: NodeJS.ProcessEnv, provider?: string) =>
    endpointName(resolveConfig(env(extra), provider ? { provider } : {}).model);

  it("names the preset chosen, not the wire format it speaks", () => {
    expect(named({ OPENAI_API_KEY: "sk-1" })).toBe("openai");
    expect(named({ RELM_PROVIDER: "anthropic" })).toBe("anthropic");
    for (const preset of ["ollama", "lmstudio", "vllm", "openrouter", "groq"])
      expect(named({}, preset)).toBe(preset);
  });

  it("adds the server's host when a base URL was set: a custom server is not the preset's own", () => {
    expect(named({ RELM_BASE_URL: "http://127.0.0.1:8080/v1" })).toBe("openai at 127.0.0.1:8080");
    expect(named({ OLLAMA_HOST: "gpu-box:11434" }, "ollama")).toBe("ollama at gpu-box:11434");
  });

  it("names a subscription by what was signed in to", () => {
    expect(named({ RELM_SUBSCRIPTION: "chatgpt" })).toBe("chatgpt subscription");
    expect(named({ RELM_SUBSCRIPTION: "claude" })).toBe("claude subscription");
  });
});
