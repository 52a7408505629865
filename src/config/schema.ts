// The shape of $RELM_HOME/config.json, checked with valibot: one schema gives both the check and the
// TypeScript type (ConfigFile), and every message names the key, what it must be and what it was:
// `/home/me/.relm/config.json: cellTimeoutSeconds must be a number > 0 (seconds), got "5m"`.
// valibot is bundled into the CLI (a development dependency, see docs/dependencies.md); only what this
// file uses is included, a few kB, read on every command that reads the configuration.

import * as v from "valibot";
import { ConfigError } from "./errors.js";
import { modeNamed } from "./permission-mode.js";
import { isRecord } from "./records.js";

/**
 * An object with exactly these keys: every unknown key is named at once (with the known ones), which
 * valibot's strictObject does not do (it stops at the first), and an array is not an object here.
 */
function fields<const E extends v.ObjectEntries>(entries: E, what = "must be an object") {
  const known = Object.keys(entries);
  return v.pipe(
    v.custom<Record<string, unknown>>(isRecord, what),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const unknown = Object.keys(dataset.value).filter((k) => !known.includes(k));
      if (unknown.length > 0)
        addIssue({ message: `unknown field(s) ${unknown.join(", ")}; known fields: ${known.join(", ")}` });
    }),
    v.object(entries),
  );
}

const above0 = (unit = "") => {
  const m = `must be a number > 0${unit}`;
  return v.pipe(v.number(m), v.finite(m), v.gtValue(0, m));
};

const atLeast0 = (unit = "") => {
  const m = `must be a number of 0 or more${unit}`;
  return v.pipe(v.number(m), v.finite(m), v.minValue(0, m));
};

const whole = (min: number, unit = "", extra = "") => {
  const m = `must be a whole number of ${min} or more${unit}${extra}`;
  return v.pipe(v.number(m), v.integer(m), v.minValue(min, m));
};

const text = (m = "must be non-empty text") =>
  v.pipe(
    v.string(m),
    v.check((s) => s.trim() !== "", m),
  );

const flag = () => v.boolean("must be true or false");

const httpUrl = () => {
  const m = "must be an http:// or https:// URL";
  return v.pipe(v.string(m), v.regex(/^https?:\/\//, m));
};

const fraction = (m: string) => v.pipe(v.number(m), v.gtValue(0, m), v.maxValue(1, m));

/** A fraction that may be 0 (none of it). */
const share = (m: string) => v.pipe(v.number(m), v.minValue(0, m), v.maxValue(1, m));

const usd = atLeast0(" (US dollars per million tokens)");

/** One approvals list: hosts (HOST[:PORT]), command prefixes, paths. */
function approvalRulesSchema() {
  const list = (what: string) => v.optional(v.array(text(`must be ${what}`), `must be a list of ${what}s`));
  return fields({ hosts: list("a host"), commands: list("a command prefix"), paths: list("a path") });
}

const priceSchema = fields(
  { input: usd, output: usd, cachedInput: v.optional(usd), cacheWrite: v.optional(usd) },
  "must be an object: {input, output} in US dollars per million tokens",
);

const budgetShare = fraction("must be a fraction of the session's limits: above 0, at most 1");
const budgetObject = fields(
  { share: v.optional(budgetShare), tokens: v.optional(whole(1)), cost: v.optional(above0(" (US dollars)")) },
  "must be a fraction, or an object with share, tokens and/or cost",
);

/** config.json's `learn` (docs/harness.md, "Learning on the fly"); learn-config.ts fills in the defaults. */
export const learnSectionSchema = fields({
  /** On in every session without --learn. */
  enabled: v.optional(flag()),
  /** A pass after this many model calls since the last one; 0 or false: never by count. */
  every_turns: v.optional(
    v.lazy((input) => (input === false ? v.literal(false) : whole(0, "", ", or false"))),
  ),
  /** A pass whenever a compaction rebuilds the prompt. */
  at_compaction: v.optional(flag()),
  /** A pass when the same gate failed this many times in a row the same way; false or 0: never. */
  on_gate_failure: v.optional(
    v.lazy((input) =>
      typeof input === "boolean"
        ? v.boolean()
        : input === 0
          ? v.literal(0)
          : whole(2, "", " (or true, false, 0)"),
    ),
  ),
  /** Learning's share of the session's limits, or {share, tokens, cost}. */
  budget: v.optional(v.lazy((input) => (typeof input === "number" ? budgetShare : budgetObject))),
  /** The model passes use; else refineModel, else the session's own. */
  model: v.optional(text("must be a model name")),
  /** The share of what is left of the session's limits a background replay check may spend; 0: none. */
  verify_share: v.optional(share("must be a fraction from 0 to 1")),
});

/** config.json's `search`: the provider `search()` uses, its key, and its endpoint when not the public one. */
const searchSection = fields(
  {
    provider: v.picklist(
      ["searxng", "brave", "tavily", "serper", "exa"],
      'must be one of "searxng", "brave", "tavily", "serper", "exa"',
    ),
    apiKey: v.optional(text()),
    baseUrl: v.optional(httpUrl()),
  },
  "must be an object: {provider, apiKey, baseUrl}",
);

/** What `$RELM_HOME/config.json` may hold. Every field is optional; the environment overrides it. */
export const configFileSchema = fields(
  {
    // Which names exist (presets, wire formats) is checked when the configuration is resolved, with a
    // suggestion for a typo (config.ts parseProvider).
    provider: v.optional(text('must be a provider name such as "openai", "anthropic" or "openrouter"')),
    baseUrl: v.optional(httpUrl()),
    apiKey: v.optional(text()),
    model: v.optional(text("must be a model name")),
    /** The Python interpreter for kernels (RELM_PYTHON overrides it). */
    python: v.optional(text("must be the path of a Python interpreter")),
    /** Per-model prices (USD per million tokens), overriding the built-in table. */
    prices: v.optional(v.record(v.string(), priceSchema, "must be an object of model names to prices")),
    /** Force image support on or off for the configured model. */
    acceptsImages: v.optional(flag()),
    stream: v.optional(flag()),
    retry: v.optional(
      fields({
        maxAttempts: v.optional(whole(1, " (tries)")),
        baseMs: v.optional(atLeast0(" (milliseconds)")),
        maxMs: v.optional(atLeast0(" (milliseconds)")),
      }),
    ),
    /** How hard reasoning models think (`--thinking`); unset leaves it to the model. */
    thinking: v.optional(
      v.picklist(["off", "low", "medium", "high"], 'must be "off", "low", "medium" or "high"'),
    ),
    /** Seconds without a byte from the model server before a try is abandoned (and retried); default 300. */
    requestIdleTimeout: v.optional(above0(" (seconds)")),
    /** The most one streamed event of the model server may hold, in MiB (default 16): more is malformed. */
    maxStreamEventMB: v.optional(above0(" (megabytes)")),
    /** A cell is interrupted after this long (default 300). */
    cellTimeoutSeconds: v.optional(above0(" (seconds)")),
    /** Characters of a cell's output the model is shown (default 20 000). */
    outputCap: v.optional(whole(1, " (characters)")),
    /** A detached session's host exits after this long without work (default 1800). */
    idleTimeoutSeconds: v.optional(above0(" (seconds)")),
    /** An idle session frees its kernel (variables snapshotted) after this long (default 300). */
    kernelIdleTimeoutSeconds: v.optional(above0(" (seconds)")),
    /** A variable over this (MiB, default 64) is not in the snapshot taken after each cell. */
    snapshotMaxVariableMB: v.optional(above0(" (megabytes)")),
    /** The snapshot after each cell holds at most this much in all (MiB, default 256). */
    snapshotMaxTotalMB: v.optional(above0(" (megabytes)")),
    /**
     * Variables over snapshotMaxVariableMB are saved by a forked copy of the kernel, in the background, up
     * to this much in all (MiB, default 2048; 0: not saved, lost when an idle kernel is freed).
     */
    snapshotMaxLargeMB: v.optional(atLeast0(" (megabytes)")),
    /** Context windows in tokens by model-name prefix, overriding the built-in table (e.g. Ollama's num_ctx). */
    contextWindows: v.optional(
      v.record(v.string(), whole(1, " (tokens)"), "must be an object of model names to token counts"),
    ),
    /** Compact the conversation when the prompt reaches this fraction of the window (default 0.8). */
    compactAt: v.optional(fraction("must be a fraction of the context window: above 0, at most 1")),
    /** The model `/refine` and `relm refine` use; the session's own model when unset. */
    refineModel: v.optional(text("must be a model name")),
    /** Online refinement (`--learn`): when passes run, what they may spend, which model. */
    learn: v.optional(learnSectionSchema),
    /** The subscription `relm login` signed in with (tokens in auth.json, never here); "none" for none. */
    subscription: v.optional(
      v.picklist(
        ["claude", "chatgpt", "copilot", "none"],
        'must be "claude", "chatgpt", "copilot" or "none"',
      ),
    ),
    /** Moves a subscription's OAuth endpoints to another base URL (tests, proxies): {"claude": URL}. */
    oauthUrls: v.optional(
      fields({
        claude: v.optional(httpUrl()),
        chatgpt: v.optional(httpUrl()),
        copilot: v.optional(httpUrl()),
      }),
    ),
    /** Web search for `search()` in the kernel (`relm login --search`); the key stays in the host. */
    search: v.optional(searchSection),
    /** Hosts `fetch()` may reach (`--allow-web` adds to them); unset: any host, none in the sandbox. */
    allowWeb: v.optional(
      v.array(text("must be a host name"), 'must be a list of host names, e.g. ["docs.python.org"]'),
    ),
    /** The permission mode (docs/sandbox.md): "plan" (read-only), "workspace" or "full"; unset: the default. */
    mode: v.optional(
      v.pipe(
        v.string('must be "plan", "workspace" or "full"'),
        v.check((word) => modeNamed(word) !== undefined, 'must be "plan", "workspace" or "full"'),
      ),
    ),
    /** How sandboxed modes confine: "workspace" (read-only system), "strict" (also $HOME hidden); "off": mode full. */
    sandbox: v.optional(v.picklist(["off", "workspace", "strict"], 'must be "off", "workspace" or "strict"')),
    /** Where kernels run (`--kernel` overrides it): "local", "sandbox", "cmd:COMMAND", "ssh://host", ... */
    kernel: v.optional(text('must be a kernel URI such as "local", "ssh://host" or "cmd:COMMAND"')),
    /** Who answers a kernel's request for more (docs/sandbox.md "Approvals"): never, ask (default), auto. */
    approve: v.optional(v.picklist(["never", "ask", "auto"], 'must be "never", "ask" or "auto"')),
    /** Requests granted (allow) or refused (deny, which wins) without asking: by host, command prefix, path. */
    approvals: v.optional(
      fields({
        allow: v.optional(approvalRulesSchema()),
        deny: v.optional(approvalRulesSchema()),
      }),
    ),
    /** Commands run at points of a session (docs/hooks.md), in Claude Code's shape; checked by hooks.ts. */
    hooks: v.optional(
      v.custom<Record<string, unknown>>(isRecord, 'must be an object of event names, e.g. {"Stop": [...]}'),
    ),
    /** What a sandboxed kernel may connect to (`--allow-net` replaces it): ["HOST[:PORT]", ...] or ["*"]. */
    allowNet: v.optional(
      v.array(
        text("must be HOST or HOST:PORT"),
        'must be a list such as ["pypi.org", "127.0.0.1:8080"] or ["*"]',
      ),
    ),
  },
  "must hold a JSON object",
);

export type ConfigFile = v.InferOutput<typeof configFileSchema>;

/**
 * One line per problem: the key, what it must be, and what it was. `where` is the file, or the file and
 * a section of it (`config.json: learn`), which the key then continues.
 */
function describe(issue: v.BaseIssue<unknown>, where: string): string {
  // `learn.budget.tokens` from the issue's path; "" for the object itself.
  const key = (issue.path ?? []).map((item) => String(item.key)).join(".");
  const subject = !key ? where : where.includes(": ") ? `${where}.${key}` : `${where}: ${key}`;
  if (issue.message.startsWith("unknown field(s)")) return `${subject}: ${issue.message}`;
  // A required key that is absent (an object schema's own issue, on the key's path).
  if (issue.type === "object" && issue.input === undefined) return `${subject} is missing`;
  // An API key is never echoed, even a malformed one: only its type is.
  const shown =
    key === "apiKey" || key === "search.apiKey"
      ? `a ${Array.isArray(issue.input) ? "list" : typeof issue.input}`
      : JSON.stringify(issue.input);
  const got = issue.input === undefined ? "missing" : `got ${shown}`;
  return `${subject} ${issue.message}, ${got}`;
}

/**
 * Checks `value` against `schema`; a ConfigError lists every problem (`where` names the file, and the
 * section when it is one).
 */
export function checkConfig<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  where: string,
): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  // A schema may report the same place twice (an object's own check and its fields'); say it once.
  const lines = [...new Set(result.issues.map((issue) => describe(issue, where)))];
  // The file is named once, at the start.
  const file = `${where.split(": ")[0]}: `;
  throw new ConfigError(
    lines.map((l, i) => (i > 0 && l.startsWith(file) ? l.slice(file.length) : l)).join("; "),
  );
}
