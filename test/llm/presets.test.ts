// Provider presets over real HTTP: each preset, chosen by name, sends to its provider's documented path
// with its key in the provider's header (and Azure's api-version), from the key variable the provider
// documents; the expectations are written out here, not derived from the preset table.

import { afterEach, describe, expect, it } from "vitest";
import { buildClient } from "../../src/cli/client.js";
import { resolveConfig } from "../../src/config/config.js";
import { UsageError } from "../../src/config/errors.js";
import { findPreset, PRESETS } from "../../src/config/presets.js";
import { sendsCacheKey } from "../../src/llm/presets.js";
import { type ScriptedModel, startScriptedModel } from "../../src/scripted/index.js";
import { tempDir } from "../support/cli.js";
import { type ProviderFront, startProviderFront } from "../support/provider-front.js";
import { doneOf, events, request, userText } from "./helpers.js";

interface Expected {
  /** The variable the provider's docs name for the key. */
  keyEnv?: string;
  path: string;
  /** How the key arrives: `authorization: Bearer KEY`, `api-key: KEY`, `x-api-key: KEY`, or not at all. */
  auth: "bearer" | "api-key" | "x-api-key" | "none";
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

const EXPECTED: Record<string, Expected> = {
  openai: { keyEnv: "OPENAI_API_KEY", path: "/v1/chat/completions", auth: "bearer" },
  anthropic: { keyEnv: "ANTHROPIC_API_KEY", path: "/v1/messages", auth: "x-api-key" },
  openrouter: {
    keyEnv: "OPENROUTER_API_KEY",
    path: "/api/v1/chat/completions",
    auth: "bearer",
    headers: { "x-title": "relm" },
  },
  gemini: { keyEnv: "GEMINI_API_KEY", path: "/v1beta/openai/chat/completions", auth: "bearer" },
  groq: { keyEnv: "GROQ_API_KEY", path: "/openai/v1/chat/completions", auth: "bearer" },
  deepseek: { keyEnv: "DEEPSEEK_API_KEY", path: "/v1/chat/completions", auth: "bearer" },
  mistral: { keyEnv: "MISTRAL_API_KEY", path: "/v1/chat/completions", auth: "bearer" },
  xai: { keyEnv: "XAI_API_KEY", path: "/v1/chat/completions", auth: "bearer" },
  together: { keyEnv: "TOGETHER_API_KEY", path: "/v1/chat/completions", auth: "bearer" },
  fireworks: { keyEnv: "FIREWORKS_API_KEY", path: "/inference/v1/chat/completions", auth: "bearer" },
  cerebras: { keyEnv: "CEREBRAS_API_KEY", path: "/v1/chat/completions", auth: "bearer" },
  azure: {
    keyEnv: "AZURE_OPENAI_API_KEY",
    path: "/openai/deployments/scripted/chat/completions",
    auth: "api-key",
    query: { "api-version": "2024-10-21" },
  },
  lmstudio: { path: "/v1/chat/completions", auth: "none" },
  vllm: { keyEnv: "VLLM_API_KEY", path: "/v1/chat/completions", auth: "bearer" },
  ollama: { path: "/v1/chat/completions", auth: "none" },
};

let model: ScriptedModel | undefined;
let front: ProviderFront | undefined;
const dirs: { cleanup(): void }[] = [];
afterEach(async () => {
  await front?.close();
  await model?.close();
  front = undefined;
  model = undefined;
  for (const d of dirs.splice(0)) d.cleanup();
});

function home(): string {
  const dir = tempDir("relm-presets-");
  dirs.push(dir);
  return dir.path;
}

/** The base URL a user of this preset would reach, moved to the front: the host differs, the path not. */
function envFor(name: string, f: ProviderFront, key: string | undefined): NodeJS.ProcessEnv {
  const expected = EXPECTED[name] as Expected;
  const env: NodeJS.ProcessEnv = { RELM_HOME: home(), RELM_MODEL: "scripted" };
  if (expected.keyEnv && key) env[expected.keyEnv] = key;
  // Azure and Ollama are moved by their own variables (resource endpoint, OLLAMA_HOST); the others by
  // RELM_BASE_URL with the preset's own path.
  if (name === "azure") env.AZURE_OPENAI_ENDPOINT = f.origin;
  else if (name === "ollama") env.OLLAMA_HOST = f.origin.replace("http://", "");
  else env.RELM_BASE_URL = f.rebase((findPreset(name) as { baseUrl: string }).baseUrl);
  return env;
}

describe("provider presets", () => {
  it("covers every preset relm has", () => {
    const tested = new Set([...Object.keys(EXPECTED), "openai-responses"]);
    expect(PRESETS.map((p) => p.name).filter((n) => !tested.has(n))).toEqual([]);
  });

  it("each sends to its documented path with its key in the provider's header", async () => {
    model = await startScriptedModel({ script: [{ text: "ok" }], onExhausted: "repeat-last" });
    front = await startProviderFront(model);
    for (const [name, expected] of Object.entries(EXPECTED)) {
      const key = expected.auth === "none" ? undefined : `sk-${name}-secret`;
      const config = resolveConfig(envFor(name, front, key), { provider: name });
      expect(config.model.preset, name).toBe(name);
      const client = buildClient(config);
      const done = doneOf(await events(client, request([userText("hi")])));
      expect(done.message.text, name).toBe("ok");
      const seen = front.requests.at(-1);
      expect(seen?.path, name).toBe(expected.path);
      expect(seen?.query, name).toEqual(expected.query ?? {});
      const h = seen?.headers ?? {};
      if (expected.auth === "bearer") expect(h.authorization, name).toBe(`Bearer ${key}`);
      else expect(h.authorization, name).toBeUndefined();
      if (expected.auth === "api-key") expect(h["api-key"], name).toBe(key);
      else expect(h["api-key"], name).toBeUndefined();
      if (expected.auth === "x-api-key") expect(h["x-api-key"], name).toBe(key);
      for (const [header, value] of Object.entries(expected.headers ?? {}))
        expect(h[header], name).toBe(value);
      expect(JSON.parse(seen?.body ?? "{}").model, name).toBe("scripted");
    }
  });

  it("a key in the environment picks its provider when nothing else is configured", () => {
    const base = { RELM_HOME: home() };
    expect(resolveConfig({ ...base, GROQ_API_KEY: "gsk" }).model).toMatchObject({
      preset: "groq",
      provider: "openai",
      baseUrl: "https://api.groq.com/openai/v1",
      apiKey: "gsk",
      sources: { provider: "env", apiKey: "env" },
    });
    expect(resolveConfig({ ...base, ANTHROPIC_API_KEY: "ak" }).model).toMatchObject({
      preset: "anthropic",
      provider: "anthropic",
    });
    expect(resolveConfig({ ...base, GEMINI_API_KEY: "g" }).model.baseUrl).toBe(
      "https://generativelanguage.googleapis.com/v1beta/openai",
    );
    // Several: the picker's order decides (Anthropic before OpenRouter before the rest).
    expect(resolveConfig({ ...base, XAI_API_KEY: "x", OPENROUTER_API_KEY: "o" }).model.preset).toBe(
      "openrouter",
    );
    // Today's precedence stands: an OpenAI key or any RELM_ setting keeps the default provider...
    expect(resolveConfig({ ...base, GROQ_API_KEY: "gsk", OPENAI_API_KEY: "sk" }).model.preset).toBe("openai");
    expect(resolveConfig({ ...base, GROQ_API_KEY: "gsk", RELM_API_KEY: "k" }).model.preset).toBe("openai");
    expect(
      resolveConfig({ ...base, GROQ_API_KEY: "gsk", RELM_BASE_URL: "http://127.0.0.1:9/v1" }).model.preset,
    ).toBe("openai");
    // ...and a named provider always wins.
    expect(resolveConfig({ ...base, GROQ_API_KEY: "gsk", RELM_PROVIDER: "mistral" }).model).toMatchObject({
      preset: "mistral",
      apiKey: undefined,
    });
    expect(resolveConfig({ ...base, GROQ_API_KEY: "gsk" }, { provider: "xai" }).model.preset).toBe("xai");
    // Nothing at all: OpenAI, as before.
    expect(resolveConfig(base).model).toMatchObject({ preset: "openai", sources: { provider: "default" } });
  });

  it("refuses an unknown provider, naming the known ones and the likely one", () => {
    const base = { RELM_HOME: home() };
    let error: unknown;
    try {
      resolveConfig(base, { provider: "openrouterr" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(
      /^--provider "openrouterr" is not a known provider \(did you mean "openrouter"\?\); known: openai, /,
    );
    expect((error as Error).message).toContain("azure");
    expect(() => resolveConfig({ ...base, RELM_PROVIDER: "groc" })).toThrow(/did you mean "groq"/);
    expect(() => resolveConfig({ ...base, RELM_PROVIDER: "nothing-like-it" })).toThrow(
      /^provider "nothing-like-it" is not a known provider; known: /,
    );
    // Other names people use for the same provider.
    expect(resolveConfig(base, { provider: "google" }).model.preset).toBe("gemini");
  });

  it("sends prompt_cache_key only where the endpoint takes it", () => {
    expect(sendsCacheKey("openai", "https://api.openai.com/v1")).toBe(true);
    expect(sendsCacheKey("openai", "https://api.mistral.ai/v1")).toBe(false);
    expect(sendsCacheKey("openai", "http://127.0.0.1:11434/v1")).toBe(false);
    expect(sendsCacheKey("anthropic", "https://api.anthropic.com")).toBe(false);
  });
});
