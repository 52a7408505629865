import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { apiKeyProblem } from "./api-key.js";
import { type ApprovalLists, type ApprovalRules, emptyRules } from "./approvals.js";
import { baseUrlProblem } from "./base-url.js";
import { ConfigError, UsageError } from "./errors.js";
import { relmHomeFrom } from "./home.js";
import { type HookCommand, parseHooks } from "./hooks.js";
import { type LearnSettings, parseLearnSection } from "./learn-config.js";
import {
  type PresetRequestShape,
  type Price,
  type Provider,
  type ProviderPreset,
  THINKING_LEVELS,
  type ThinkingLevel,
} from "./model-types.js";
import type { SessionSpec } from "./options.js";
import {
  envBaseUrl,
  envKey,
  findPreset,
  presetClientOptions,
  presetsWithEnvKey,
  unknownProvider,
  wireFor,
} from "./presets.js";
import { parseEditedJson } from "./records.js";
import { type ConfigFile, checkConfig, configFileSchema } from "./schema.js";
import { type SubscriptionSetting, subscriptionFrom, withSubscription } from "./subscription-config.js";

// What config.json may hold, and its type, is the schema in schema.ts.
export type { ConfigFile } from "./schema.js";
// Defined in home.ts (which the lean `relm agents` entry loads alone); callers of config.ts find it here too.
export { relmHomeFrom };

type Source = "flag" | "env" | "config" | "default";

/** The preset's request shape (presets.ts PresetRequestShape: headers, query, keyHeader, catalog, local), and: */
interface ModelConfig extends PresetRequestShape {
  provider: Provider;
  baseUrl: string;
  apiKey?: string;
  model?: string;
  price?: Price;
  acceptsImages?: boolean;
  stream: boolean;
  retry: { maxAttempts?: number; baseMs?: number; maxMs?: number };
  /** config.json's requestIdleTimeout in ms; undefined means the client's default (300 s). */
  requestIdleTimeoutMs?: number;
  /** config.json's maxStreamEventMB in bytes; undefined means the client's default (16 MiB). */
  maxEventBytes?: number;
  /** `--thinking` / RELM_THINKING / config `thinking`; undefined sends nothing (the model's default). */
  thinking?: ThinkingLevel;
  /** The provider preset by name (openai, anthropic, openrouter, azure, ollama, ...): see config/presets.ts. */
  preset: string;
  /** Signed in with a subscription (`relm login`): its OAuth tokens authenticate instead of a key. */
  subscription?: SubscriptionSetting;
  /** Where each value came from, for `relm doctor`. Never includes the key itself. */
  sources: { provider: Source; baseUrl: Source; apiKey: Source | "none"; model: Source | "none" };
  /** The same as a user would look for it (`--model`, `OPENAI_API_KEY`, `apiKey in PATH`), for errors. */
  origins: { apiKey?: string; model?: string; baseUrl?: string };
}

const MIB = 1024 * 1024;

/** The variable snapshots' caps in bytes (config.json's snapshotMax*MB). */
export interface SnapshotCaps {
  /** One variable over this is not in the snapshot taken after each cell. */
  maxVarBytes: number;
  /** That snapshot's total. */
  maxTotalBytes: number;
  /** Variables over maxVarBytes, saved in the background by a fork of the kernel, in all; 0: off. */
  maxLargeBytes: number;
}

/**
 * The settings of config.json a session takes as they are: `search` (the provider search() uses; its key
 * never leaves the host), `allowWeb` (hosts fetch() may reach; --allow-web adds to them), `mode` (the
 * permission mode when no flag or RELM_MODE names one; docs/sandbox.md), `sandbox` ("strict" hides $HOME
 * in sandboxed modes; "off" is `mode: full`, the older word), `allowNet` (what a sandboxed kernel may reach
 * when --allow-net is not given), `approve` (who answers a kernel's request for more when --approve is not
 * given) and `kernel` (where kernels run, a kernel URI; `--kernel` overrides it; docs/launchers.md).
 */
const AS_IS = ["search", "allowWeb", "mode", "sandbox", "allowNet", "approve", "kernel"] as const;
type AsIs = Pick<ConfigFile, (typeof AS_IS)[number]>;

export interface ResolvedConfig extends AsIs {
  home: string;
  configPath: string;
  configFound: boolean;
  model: ModelConfig;
  python?: string;
  /** Prices per model name from config.json. */
  prices: Record<string, Price>;
  cellTimeoutMs: number;
  outputCap: number;
  idleTimeoutMs: number;
  kernelIdleTimeoutMs: number;
  /** What the variable snapshots hold (python/relm/snapshot.py, bigvars.py), in bytes. */
  snapshotCaps: SnapshotCaps;
  compaction: { windows: Record<string, number>; threshold: number };
  /** RELM_REFINE_MODEL, else config.json's refineModel; undefined means the session's model. */
  refineModel?: string;
  /** The online-refinement policy with its defaults (on only with --learn, /learn on or learn.enabled). */
  learn: LearnSettings;
  /** config.json's `hooks`, checked (docs/hooks.md): the user's own, trusted. */
  hooks: HookCommand[];
  /** config.json's `approvals`: requests granted or refused without asking (docs/sandbox.md). */
  approvals: ApprovalLists;
}

/** The options that choose the model (`--thinking off|low|medium|high` too), as the option table types them. */
export type ConfigFlags = Pick<SessionSpec, "provider" | "baseUrl" | "model" | "thinking">;

/** `--thinking`, else RELM_THINKING, else config.json's `thinking`; unset leaves it to the model. */
function resolveThinking(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  cfg: ConfigFile,
): ThinkingLevel | undefined {
  const pick = firstSet<string>([flag, "flag"], [env.RELM_THINKING, "env"], [cfg.thinking, "config"]);
  if (!pick) return undefined;
  const value = pick[0].trim().toLowerCase();
  if ((THINKING_LEVELS as readonly string[]).includes(value)) return value as ThinkingLevel;
  const where = pick[1] === "flag" ? "--thinking" : pick[1] === "env" ? "RELM_THINKING" : "thinking";
  const message = `${where} must be one of ${THINKING_LEVELS.join(", ")}, got "${pick[0]}"`;
  throw pick[1] === "flag" ? new UsageError(message) : new ConfigError(message);
}

/** config.json, checked against its schema; undefined when there is none. */
export function readConfigFile(path: string): ConfigFile | undefined {
  if (!existsSync(path)) return undefined;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(`${path} could not be read (${code}); make it a readable file or delete it`);
  }
  let parsed: unknown;
  try {
    parsed = parseEditedJson(text);
  } catch (error) {
    throw new ConfigError(`${path} is not valid JSON (${(error as Error).message}); fix or delete it`);
  }
  return checkConfig(configFileSchema, parsed, path);
}

function parseProvider(value: string, source: Source): ProviderPreset {
  const preset = findPreset(value);
  if (preset) return preset;
  const message = unknownProvider(source === "flag" ? "--provider" : "provider", value);
  // A flag is a usage mistake (exit 2); RELM_PROVIDER or config.json is configuration (exit 1).
  throw source === "flag" ? new UsageError(message) : new ConfigError(message);
}

/**
 * With no provider named anywhere and no OpenAI endpoint or key configured, a key already in the
 * environment picks its provider (ANTHROPIC_API_KEY, OPENROUTER_API_KEY, GEMINI_API_KEY, ...), in
 * picker order when there are several.
 */
function providerFromEnvKey(env: NodeJS.ProcessEnv, cfg: ConfigFile): ProviderPreset | undefined {
  const openaiConfigured = [
    env.RELM_API_KEY,
    env.OPENAI_API_KEY,
    env.RELM_BASE_URL,
    env.OPENAI_BASE_URL,
    cfg.apiKey,
    cfg.baseUrl,
  ].some((v) => typeof v === "string" && v.trim() !== "");
  return openaiConfigured ? undefined : presetsWithEnvKey(env)[0];
}

const MODEL_ORIGIN: Partial<Record<Source, string>> = { flag: "--model", env: "RELM_MODEL" };

function firstSet<T>(...candidates: [T | undefined, Source][]): [T, Source] | undefined {
  for (const [value, source] of candidates) {
    if (value !== undefined && value !== "") return [value, source];
  }
  return undefined;
}

/** What the origins of a base URL or key are named from: the provider, the environment, config.json's path. */
interface Resolving {
  preset: ProviderPreset;
  env: NodeJS.ProcessEnv;
  configPath: string;
}

/**
 * Refuses a malformed base URL before any request, naming where it came from: a flag is a usage mistake
 * (exit 2), the environment or config.json is configuration (exit 1), as for --provider.
 */
function checkBaseUrl(url: string, source: Source, at: Resolving): void {
  const problem = baseUrlProblem(url);
  if (!problem) return;
  const where = baseUrlOrigin(source, at) ?? `provider ${at.preset.name}'s default`;
  const message = `${where}: base URL "${url}" ${problem}`;
  throw source === "flag" ? new UsageError(message) : new ConfigError(message);
}

/** Where a base URL was set, as a user would look for it; undefined for the preset's default. */
function baseUrlOrigin(source: Source, { preset, env, configPath }: Resolving): string | undefined {
  if (source === "flag") return "--base-url";
  if (source === "env") return env.RELM_BASE_URL ? "RELM_BASE_URL" : (preset.baseUrlEnv ?? "the environment");
  return source === "config" ? `baseUrl in ${configPath}` : undefined;
}

/** The base URL's origin as a model error names it ("check ..."): the preset's default said as one. */
function baseUrlHint(source: Source, at: Resolving): string {
  const origin = baseUrlOrigin(source, at);
  if (origin) return origin;
  const { preset, configPath } = at;
  const ways = ["--base-url", "RELM_BASE_URL", preset.baseUrlEnv].filter((w) => w !== undefined);
  return `the default base URL of provider "${preset.name}" (${ways.join(", ")} or baseUrl in ${configPath} set another)`;
}

/** Where an API key was set: config.json's apiKey, RELM_API_KEY or the preset's variable. */
function apiKeyOrigin(source: Source, { preset, env, configPath }: Resolving) {
  if (source === "config") return `apiKey in ${configPath}`;
  if (env.RELM_API_KEY) return "RELM_API_KEY";
  return preset.keyEnv.find((name) => env[name]?.trim()) ?? "the environment";
}

/** Refuses an API key that cannot be sent (api-key.ts), naming where it came from, not the key. */
function checkApiKey(key: string, source: Source, at: Resolving) {
  const problem = apiKeyProblem(key);
  if (!problem) return;
  throw new ConfigError(`${apiKeyOrigin(source, at)}: ${problem}`);
}

/**
 * Environment overrides the config file; flags override both. `withoutFile`: as if there were no config
 * file (relm doctor goes on with it past a config.json it cannot read).
 */
export function resolveConfig(
  env: NodeJS.ProcessEnv,
  flags: ConfigFlags = {},
  options: { withoutFile?: boolean } = {},
): ResolvedConfig {
  const home = relmHomeFrom(env);
  const configPath = join(home, "config.json");
  const file = options.withoutFile ? undefined : readConfigFile(configPath);
  const cfg = file ?? {};

  const named = firstSet<string>(
    [flags.provider, "flag"],
    [env.RELM_PROVIDER, "env"],
    [cfg.provider, "config"],
  );
  const byKey = named ? undefined : providerFromEnvKey(env, cfg);
  const providerPick: [string, Source] = named ?? (byKey ? [byKey.name, "env"] : ["openai", "default"]);
  const preset = parseProvider(providerPick[0], providerPick[1]);

  const basePick = firstSet<string>(
    [flags.baseUrl, "flag"],
    [env.RELM_BASE_URL, "env"],
    [envBaseUrl(preset, env), "env"],
    [cfg.baseUrl, "config"],
  ) ?? [preset.baseUrl, "default"];
  const keyPick = firstSet<string>(
    [env.RELM_API_KEY, "env"],
    [envKey(preset, env), "env"],
    [cfg.apiKey, "config"],
  );
  // A name read from a file keeps its line end (CRLF), a .env line its trailing blank: neither is part of
  // the name, and a blank one is no name at all.
  const modelPick = firstSet<string>(
    [flags.model?.trim(), "flag"],
    [env.RELM_MODEL?.trim(), "env"],
    [cfg.model?.trim(), "config"],
  );

  const baseUrl = basePick[0].replace(/\/+$/, "");
  const at: Resolving = { preset, env, configPath };
  checkBaseUrl(baseUrl, basePick[1], at);
  if (keyPick) checkApiKey(keyPick[0], keyPick[1], at);
  const provider = wireFor(preset, baseUrl);
  const model = modelPick?.[0];
  const resolved: ResolvedConfig = {
    home,
    configPath,
    configFound: file !== undefined,
    python: env.RELM_PYTHON || cfg.python,
    prices: cfg.prices ?? {},
    cellTimeoutMs: (cfg.cellTimeoutSeconds ?? 300) * 1000,
    outputCap: cfg.outputCap ?? 20_000,
    idleTimeoutMs: (cfg.idleTimeoutSeconds ?? 1800) * 1000,
    kernelIdleTimeoutMs: (cfg.kernelIdleTimeoutSeconds ?? 300) * 1000,
    snapshotCaps: {
      maxVarBytes: Math.round((cfg.snapshotMaxVariableMB ?? 64) * MIB),
      maxTotalBytes: Math.round((cfg.snapshotMaxTotalMB ?? 256) * MIB),
      maxLargeBytes: Math.round((cfg.snapshotMaxLargeMB ?? 2048) * MIB),
    },
    compaction: { windows: cfg.contextWindows ?? {}, threshold: cfg.compactAt ?? 0.8 },
    refineModel: env.RELM_REFINE_MODEL?.trim() || cfg.refineModel?.trim() || undefined,
    learn: parseLearnSection(cfg.learn, `${configPath}: learn`),
    ...(Object.fromEntries(AS_IS.map((key) => [key, cfg[key]])) as AsIs),
    hooks: parseHooks(cfg.hooks, configPath, "user"),
    approvals: approvalListsOf(cfg.approvals),
    model: {
      provider,
      preset: preset.name,
      ...presetClientOptions(preset.name, env),
      baseUrl,
      apiKey: keyPick?.[0],
      model,
      price: model ? cfg.prices?.[model] : undefined,
      acceptsImages: cfg.acceptsImages,
      stream: cfg.stream ?? true,
      retry: cfg.retry ?? {},
      requestIdleTimeoutMs: cfg.requestIdleTimeout === undefined ? undefined : cfg.requestIdleTimeout * 1000,
      maxEventBytes: cfg.maxStreamEventMB === undefined ? undefined : Math.round(cfg.maxStreamEventMB * MIB),
      thinking: resolveThinking(flags.thinking, env, cfg),
      sources: {
        provider: providerPick[1],
        baseUrl: basePick[1],
        apiKey: keyPick?.[1] ?? "none",
        model: modelPick?.[1] ?? "none",
      },
      origins: {
        ...(keyPick ? { apiKey: apiKeyOrigin(keyPick[1], at) } : {}),
        ...(modelPick ? { model: MODEL_ORIGIN[modelPick[1]] ?? `model in ${configPath}` } : {}),
        baseUrl: baseUrlHint(basePick[1], at),
      },
    },
  };
  resolved.model = withSubscription(
    resolved.model,
    subscriptionFrom(env, cfg, named !== undefined && named[1] !== "config"),
    flags.baseUrl || env.RELM_BASE_URL || undefined,
  );
  return resolved;
}

/**
 * The endpoint as the person chose it, for the session header and the status line: the subscription, or
 * the preset (not the wire format it speaks: "qwen3 via ollama"), with the server's host when a base URL
 * was set ("via openai at gpu-box:8000": not OpenAI's own API).
 */
export function endpointName(m: ModelConfig): string {
  if (m.subscription) return `${m.subscription.id} subscription`;
  // Parses: checkBaseUrl refused any base URL that does not.
  return m.sources.baseUrl === "default" ? m.preset : `${m.preset} at ${new URL(m.baseUrl).host}`;
}

/** The error shown when no model is configured: exactly what to set, with a local example. */
export function noModelMessage(): string {
  return [
    "no model configured. Set the model and, for a non-default endpoint, its URL:",
    '  RELM_MODEL=qwen3 RELM_BASE_URL=http://localhost:11434/v1 relm run "..."   # Ollama',
    '  RELM_MODEL=gpt-5 OPENAI_API_KEY=... relm run "..."                        # OpenAI',
    '  RELM_PROVIDER=anthropic RELM_MODEL=claude-sonnet-4-5 ANTHROPIC_API_KEY=... relm run "..."',
    "or save them once with `relm login` (written to $RELM_HOME/config.json, mode 0600).",
    "To see relm work without any model, run `relm demo`.",
  ].join("\n");
}

/** config.json's `approvals`, every list present (empty when not given). */
function approvalListsOf(section: ConfigFile["approvals"]): ApprovalLists {
  const rules = (r: Partial<ApprovalRules> | undefined): ApprovalRules => ({
    ...emptyRules(),
    ...Object.fromEntries(Object.entries(r ?? {}).filter(([, list]) => list !== undefined)),
  });
  return { allow: rules(section?.allow), deny: rules(section?.deny) };
}
