// Provider presets: what it takes to talk to a known provider (wire format, base URL, where its key is
// found, how the key is sent, default headers and query), selected by name (`--provider openrouter`,
// RELM_PROVIDER, config `provider`) or by a key already in the environment, and the rules that pick one.
// Plain data, kept in config/ because resolving the configuration needs it; llm/presets.ts adds what
// requests do with a preset (headers, query, the cache key).

import { hostOf } from "./base-url.js";
import type { PresetRequestShape, Provider, ProviderPreset } from "./model-types.js";

const AZURE_API_VERSION = "2024-10-21";

/** Azure's resource endpoint (https://NAME.openai.azure.com) becomes the deployment URL shape. */
function azureBase(value: string): string {
  const base = value.replace(/\/+$/, "");
  return /\/openai\/deployments\//.test(base) ? base : `${base}/openai/deployments/{model}`;
}

/** `OLLAMA_HOST` is host[:port] or a URL; Ollama's OpenAI-compatible API is under /v1. */
function ollamaBase(value: string): string {
  const url = (/^https?:\/\//.test(value) ? value : `http://${value}`).replace(/\/+$/, "");
  return url.endsWith("/v1") ? url : `${url}/v1`;
}

/** An OpenAI-compatible server's preset: it speaks chat completions (the openai wire format). */
function compatible(preset: Omit<ProviderPreset, "wire">): ProviderPreset {
  return { ...preset, wire: "openai" };
}

const OPENAI = compatible({
  name: "openai",
  label: "OpenAI",
  baseUrl: "https://api.openai.com/v1",
  keyEnv: ["OPENAI_API_KEY"],
  baseUrlEnv: "OPENAI_BASE_URL",
  catalog: "openai",
  keyUrl: "https://platform.openai.com/api-keys",
});

/** Presets in the order pickers show them; openai and anthropic are the two wire formats' own. */
export const PRESETS: readonly ProviderPreset[] = [
  OPENAI,
  // OpenAI's Responses API (reasoning carried across turns): same endpoint, key and catalog.
  { ...OPENAI, name: "openai-responses", label: "OpenAI (Responses API)", wire: "openai-responses" },
  {
    name: "anthropic",
    label: "Anthropic",
    wire: "anthropic",
    baseUrl: "https://api.anthropic.com",
    keyEnv: ["ANTHROPIC_API_KEY"],
    baseUrlEnv: "ANTHROPIC_BASE_URL",
    keyHeader: "x-api-key",
    catalog: "anthropic",
    keyUrl: "https://console.anthropic.com/settings/keys",
  },
  compatible({
    name: "openrouter",
    label: "OpenRouter",
    baseUrl: "https://openrouter.ai/api/v1",
    keyEnv: ["OPENROUTER_API_KEY"],
    // OpenRouter's app attribution: the name shown on its activity pages.
    headers: { "X-Title": "relm" },
    catalog: "openrouter",
    keyUrl: "https://openrouter.ai/keys",
  }),
  compatible({
    name: "gemini",
    label: "Google Gemini",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
    keyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    catalog: "google",
    keyUrl: "https://aistudio.google.com/apikey",
  }),
  compatible({
    name: "groq",
    label: "Groq",
    baseUrl: "https://api.groq.com/openai/v1",
    keyEnv: ["GROQ_API_KEY"],
    catalog: "groq",
    keyUrl: "https://console.groq.com/keys",
  }),
  compatible({
    name: "deepseek",
    label: "DeepSeek",
    baseUrl: "https://api.deepseek.com/v1",
    keyEnv: ["DEEPSEEK_API_KEY"],
    catalog: "deepseek",
    keyUrl: "https://platform.deepseek.com/api_keys",
  }),
  compatible({
    name: "mistral",
    label: "Mistral",
    baseUrl: "https://api.mistral.ai/v1",
    keyEnv: ["MISTRAL_API_KEY"],
    catalog: "mistral",
    keyUrl: "https://console.mistral.ai/api-keys",
  }),
  compatible({
    name: "xai",
    label: "xAI",
    baseUrl: "https://api.x.ai/v1",
    keyEnv: ["XAI_API_KEY"],
    catalog: "xai",
    keyUrl: "https://console.x.ai",
  }),
  compatible({
    name: "together",
    label: "Together AI",
    baseUrl: "https://api.together.xyz/v1",
    keyEnv: ["TOGETHER_API_KEY"],
    keyUrl: "https://api.together.ai/settings/api-keys",
  }),
  compatible({
    name: "fireworks",
    label: "Fireworks AI",
    baseUrl: "https://api.fireworks.ai/inference/v1",
    keyEnv: ["FIREWORKS_API_KEY"],
    catalog: "fireworks",
    keyUrl: "https://fireworks.ai/account/api-keys",
  }),
  compatible({
    name: "cerebras",
    label: "Cerebras",
    baseUrl: "https://api.cerebras.ai/v1",
    keyEnv: ["CEREBRAS_API_KEY"],
    catalog: "cerebras",
    keyUrl: "https://cloud.cerebras.ai",
  }),
  compatible({
    name: "azure",
    label: "Azure OpenAI",
    // Placeholder until AZURE_OPENAI_ENDPOINT, RELM_BASE_URL or config baseUrl names the resource.
    baseUrl: "https://YOUR-RESOURCE.openai.azure.com/openai/deployments/{model}",
    keyEnv: ["AZURE_OPENAI_API_KEY"],
    baseUrlEnv: "AZURE_OPENAI_ENDPOINT",
    baseUrlFrom: azureBase,
    keyHeader: "api-key",
    query: { "api-version": AZURE_API_VERSION },
    queryEnv: { AZURE_OPENAI_API_VERSION: "api-version" },
    catalog: "azure",
    keyUrl: "https://portal.azure.com",
  }),
  compatible({
    name: "lmstudio",
    label: "LM Studio (local)",
    baseUrl: "http://localhost:1234/v1",
    keyEnv: [],
    local: true,
  }),
  compatible({
    name: "vllm",
    label: "vLLM (local)",
    baseUrl: "http://localhost:8000/v1",
    keyEnv: ["VLLM_API_KEY"],
    local: true,
  }),
  compatible({
    name: "ollama",
    label: "Ollama (local)",
    baseUrl: "http://localhost:11434/v1",
    keyEnv: [],
    baseUrlEnv: "OLLAMA_HOST",
    baseUrlFrom: ollamaBase,
    local: true,
  }),
];

export function findPreset(name: string): ProviderPreset | undefined {
  const wanted = name.trim().toLowerCase();
  const wire = OPENAI_WIRES[wanted];
  if (wire) return { ...OPENAI, name: wanted, label: `${OPENAI.label} (${wanted})`, wire };
  return PRESETS.find((p) => p.name === wanted) ?? PRESETS.find((p) => ALIASES[wanted] === p.name);
}

/**
 * Names of the openai preset with its wire format fixed, on any endpoint (otherwise wireFor decides);
 * `openai-responses` is a preset of its own.
 */
const OPENAI_WIRES: Record<string, Provider> = {
  "openai-chat": "openai",
};

/**
 * The wire format requests use: the preset's, except that the openai preset speaks the Responses API
 * to OpenAI's own endpoint (reasoning carried across turns); other OpenAI-compatible servers mostly know
 * only chat completions. `--provider openai-chat` keeps chat completions there too.
 */
export function wireFor(preset: ProviderPreset, baseUrl: string): Provider {
  if (preset.name !== "openai") return preset.wire;
  return hostOf(baseUrl) === "api.openai.com" ? "openai-responses" : preset.wire;
}

/** Other names people type for the same provider. */
const ALIASES: Record<string, string> = {
  google: "gemini",
  "azure-openai": "azure",
  grok: "xai",
  "lm-studio": "lmstudio",
  togetherai: "together",
  "fireworks-ai": "fireworks",
};

export function presetNames(): string[] {
  return PRESETS.map((p) => p.name);
}

/**
 * Presets whose key sits in the environment, in picker order, for choosing a provider when nothing
 * else is configured. openai is left out: its key is the default provider's already.
 */
export function presetsWithEnvKey(env: NodeJS.ProcessEnv): ProviderPreset[] {
  return PRESETS.filter(
    (p) =>
      p.wire !== "openai-responses" &&
      p.name !== "openai" &&
      !p.local &&
      p.keyEnv.some((k) => Boolean(env[k]?.trim())),
  );
}

/** The first of the preset's key variables that is set. */
export function envKey(preset: ProviderPreset, env: NodeJS.ProcessEnv): string | undefined {
  for (const name of preset.keyEnv) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** The preset's base URL from its environment variable, if set. */
export function envBaseUrl(preset: ProviderPreset, env: NodeJS.ProcessEnv): string | undefined {
  const value = preset.baseUrlEnv ? env[preset.baseUrlEnv]?.trim() : undefined;
  if (!value) return undefined;
  return preset.baseUrlFrom ? preset.baseUrlFrom(value) : value;
}

/** The preset's query with environment overrides applied. */
function presetQuery(preset: ProviderPreset, env: NodeJS.ProcessEnv): Record<string, string> | undefined {
  if (!preset.query) return undefined;
  const query = { ...preset.query };
  for (const [name, key] of Object.entries(preset.queryEnv ?? {})) {
    const value = env[name]?.trim();
    if (value) query[key] = value;
  }
  return query;
}

/**
 * `WHAT "NAME" is not a known provider (did you mean "X"?); known: ...`: the one message for a provider
 * name nothing knows, wherever it was given (`known`: the names that place accepts).
 */
export function unknownProvider(what: string, name: string, known = presetNames()): string {
  const suggestion = suggestPreset(name);
  const hint = suggestion ? ` (did you mean "${suggestion}"?)` : "";
  return `${what} "${name}" is not a known provider${hint}; known: ${known.join(", ")}`;
}

/** The closest known preset name to a mistyped one (edit distance at most 2), for "did you mean". */
function suggestPreset(name: string): string | undefined {
  const wanted = name.trim().toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of [...presetNames(), ...Object.keys(ALIASES), ...Object.keys(OPENAI_WIRES)]) {
    const distance = editDistance(wanted, candidate);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  if (!best) {
    const prefixed = presetNames().find((n) => n.startsWith(wanted) || wanted.startsWith(n));
    return wanted.length >= 3 ? prefixed : undefined;
  }
  return ALIASES[best.name] ?? best.name;
}

/** Levenshtein distance (insert, delete, substitute), enough for names of a few letters. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

/** The ClientOptions a preset adds to provider, base URL and key (its request shape and catalog). */
export function presetClientOptions(
  name: string | undefined,
  env: NodeJS.ProcessEnv = {},
): PresetRequestShape {
  const preset = name ? findPreset(name) : undefined;
  if (!preset) return {};
  const query = presetQuery(preset, env);
  return {
    ...(preset.headers ? { headers: { ...preset.headers } } : {}),
    ...(query ? { query } : {}),
    ...(preset.keyHeader ? { keyHeader: preset.keyHeader } : {}),
    ...(preset.catalog ? { catalog: preset.catalog } : {}),
    ...(preset.local ? { local: true } : {}),
  };
}

/** A base URL a person typed for a preset, in the shape the preset needs (Azure: the deployment URL). */
export function presetBaseUrl(name: string | undefined, typed: string): string {
  const url = typed.trim().replace(/\/+$/, "");
  const preset = name ? findPreset(name) : undefined;
  return preset?.baseUrlFrom ? preset.baseUrlFrom(url) : url;
}
