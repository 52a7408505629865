// The one table of the session's command-line options. Each option is defined here once: its words and
// help (cli/command-options.ts makes the commander options of every command from it), the type of its
// value (SessionSpec), how its value is checked, whether a session remembers it (host/session-flags.ts,
// flags.json) and whether the hosts a front end starts inherit it (session-spec.ts, the spec file a new
// host is handed). Values stay as the person wrote them ("30m", "$2"): flags.json of existing sessions
// reads unchanged, and an error quotes the person's own words.
// Checks that need a higher layer (a kernel URI, a --var file, --allow-web hosts) are marked here and
// given by cli/option-checks.ts; checkSpec runs them all, in the table's order.
import { parseTimeLimit } from "./duration.js";
import { fraction, positiveNumber, positiveWhole, wholeOrZero } from "./option-values.js";

/** How the value is written: `--x VALUE`, repeatable `--x A --x B`, or a switch. */
type OptionKind = "value" | "list" | "switch";

/**
 * Which commands carry it (cli/command-options.ts addOptions adds the sections a command names):
 * "model" every command that talks to a model, "session" every command that starts sessions, "run"
 * relm run's own, "hosts" the front ends that start session hosts (relm acp, relm mcp serve).
 */
export type Section = "model" | "session" | "run" | "hosts";

/**
 * Which hosts a front end starts get it: a group a front end may leave out ("budget": relm mcp serve
 * caps each task itself; "variables": one task's; "task": gates, goal and autonomy, which the terminal
 * UI asks for per session); "launcher": never passed on, but a launcher may put it in the spec of a
 * host it starts; or why it never reaches a host.
 */
export type Inherit = "session" | "budget" | "variables" | "task" | "launcher" | { never: string };

export interface OptionDef {
  /** commander's attribute name, the spec's key. */
  readonly key: string;
  /** commander's flags: `--max-turns <n>`. */
  readonly flags: string;
  /** The help text; by command name where commands say it differently. */
  readonly help: string | { readonly [command: string]: string };
  readonly kind: OptionKind;
  readonly sections: readonly Section[];
  /**
   * Options that are two words for one setting (`--sandbox` is `--mode workspace`) share a name here:
   * one given now replaces every remembered one of the setting (session-spec.ts mergeSpec).
   */
  readonly setting?: string;
  /** The value of `--allow-net` without one. */
  readonly preset?: string;
  /** Internal: given by relm to the processes it starts, never shown. */
  readonly hidden?: boolean;
  /** The value as a number, or a UsageError naming the flag (only options whose value is a number). */
  readonly parse?: (text: string, flag: string) => number | undefined;
  /**
   * Its value is checked by a layer above this one (a kernel URI, a --var file, host names):
   * cli/option-checks.ts gives one check for each such option, and its type (AboveChecks) says which.
   */
  readonly checkedAbove?: true;
  /** Kept in flags.json: every later host of the session runs with it. */
  readonly remember: boolean;
  readonly inherit: Inherit;
}

const NO_TERMINAL = "how this terminal prints events; a host has no terminal";
/** An internal value of relm run, given by relm to a host it starts. */
const HIDDEN_VALUE = { help: "", kind: "value", sections: ["run"], hidden: true, remember: false } as const;
/** An internal switch of relm run, given by relm to a host it starts. */
const HIDDEN_SWITCH = { ...HIDDEN_VALUE, kind: "switch" } as const;
/** Of relm run's autonomy (gates, goal), remembered by the session. */
const TASK = { kind: "value", sections: ["run"], remember: true, inherit: "task" } as const;
/** The model's: remembered, and every host of the session gets it. */
const MODEL = { kind: "value", sections: ["model"], remember: true, inherit: "session" } as const;
/** A budget: remembered, and the hosts a front end starts get it unless it caps each task itself. */
const BUDGET = { kind: "value", sections: ["session"], remember: true, inherit: "budget" } as const;
/** A setting of the session: remembered, and every host of the session gets it. */
const SESSION = { kind: "value", sections: ["session"], remember: true, inherit: "session" } as const;
const STARTED_BY = "the launcher says --as-host ID (and --resume ID) on the host's command line itself";

export const OPTIONS = [
  // relm run's own, in the order its help lists them.
  {
    key: "json",
    flags: "--json",
    help: "print every event as one JSON line on stdout",
    kind: "switch",
    sections: ["run"],
    remember: false,
    inherit: { never: NO_TERMINAL },
  },
  {
    key: "detach",
    flags: "--detach",
    help: "run in the background (survives closing the terminal) and print the session id",
    kind: "switch",
    sections: ["run"],
    remember: false,
    inherit: { never: "what made this process start the host" },
  },
  {
    key: "resume",
    flags: "--resume <id>",
    help: "continue a saved or interrupted session from its journal, with the flags it was started with (flags given now replace them)",
    kind: "value",
    sections: ["run"],
    remember: false,
    inherit: { never: STARTED_BY },
  },
  {
    key: "idleTimeout",
    flags: "--idle-timeout <seconds>",
    help: {
      run: "a detached session's host exits after this long idle (default 1800)",
      acp: "a session's host exits after this long idle (default 1800)",
      serve: "a background task's host exits after this long idle (default 1800)",
    },
    kind: "value",
    sections: ["run", "hosts"],
    parse: positiveNumber,
    remember: true,
    inherit: "session",
  },
  {
    key: "gate",
    flags: "--gate <command>",
    help: "autonomous: done only when this shell command exits 0 (repeatable)",
    ...TASK,
    kind: "list",
  },
  {
    key: "gateTimeout",
    flags: "--gate-timeout <seconds>",
    help: "time limit of each gate command (default 300)",
    ...TASK,
    parse: positiveWhole,
  },
  {
    key: "maxGateFailures",
    flags: "--max-gate-failures <n>",
    help: "stop (exit 4) after the same gate failed N times with no file change (default 3)",
    ...TASK,
    parse: positiveWhole,
  },
  {
    key: "autonomous",
    flags: "--autonomous",
    help: "keep going with continuation prompts until done() is called or a budget is spent",
    ...TASK,
    kind: "switch",
  },
  {
    // Journaled once, at the session's start: not remembered.
    key: "goal",
    flags: "--goal <objective>",
    help: "the objective, restated at every continuation and after compaction",
    kind: "value",
    sections: ["run"],
    remember: false,
    inherit: "task",
  },
  {
    // How one host was started, not the session's.
    key: "unattended",
    flags: "--unattended",
    help: "nobody will answer questions (implied by --detach with autonomous mode)",
    kind: "switch",
    sections: ["run"],
    remember: false,
    inherit: "task",
  },
  {
    key: "asHost",
    flags: "--as-host <id>",
    ...HIDDEN_VALUE,
    inherit: { never: STARTED_BY },
  },
  {
    // Started by the terminal UI or an editor: a person is there, so autonomous mode is not unattended.
    key: "interactive",
    flags: "--interactive",
    ...HIDDEN_SWITCH,
    inherit: "task",
  },
  {
    // Started by the terminal UI with its first message: wait (up to 5 s) for the UI to attach first.
    key: "awaitClient",
    flags: "--await-client",
    ...HIDDEN_SWITCH,
    inherit: "launcher",
  },
  {
    // By relm run --resume without a task: continue unfinished work at once (a revival awaits its message).
    key: "continueWork",
    flags: "--continue-work",
    ...HIDDEN_SWITCH,
    inherit: "launcher",
  },
  {
    // Started again by an idle session's stub, with its socket inherited (src/host/handoff.ts).
    key: "adopt",
    flags: "--adopt <layout>",
    ...HIDDEN_VALUE,
    inherit: {
      never: "only an idle session's stub gives it, to the host it starts again (src/host/handoff.ts)",
    },
  },
  {
    // A new host's options, in a 0600 file its launcher wrote (session-spec.ts), instead of argv.
    key: "spec",
    flags: "--spec <file>",
    ...HIDDEN_VALUE,
    inherit: { never: "the launcher writes the spec file of each host it starts" },
  },
  // The model: every command that talks to one.
  {
    key: "provider",
    flags: "--provider <name>",
    help: "openai, openai-responses, anthropic or a preset: openrouter, gemini, groq, deepseek, mistral, xai, together, fireworks, cerebras, azure, lmstudio, vllm, ollama",
    ...MODEL,
  },
  {
    key: "baseUrl",
    flags: "--base-url <url>",
    help: "endpoint, e.g. http://localhost:11434/v1 (Ollama)",
    ...MODEL,
  },
  {
    key: "model",
    flags: "--model <name>",
    help: "model name at that endpoint",
    ...MODEL,
  },
  // The session: relm, relm run, relm acp, relm mcp serve.
  {
    key: "thinking",
    flags: "--thinking <level>",
    help: "how hard reasoning models think: off, low, medium or high",
    ...SESSION,
  },
  {
    key: "maxTurns",
    flags: "--max-turns <n>",
    help: "stop after N model calls (exit 3)",
    ...BUDGET,
    parse: positiveWhole,
  },
  {
    key: "maxTokens",
    flags: "--max-tokens <n>",
    help: "stop after N input+output tokens (exit 3)",
    ...BUDGET,
    parse: positiveWhole,
  },
  {
    key: "maxTime",
    flags: "--max-time <duration>",
    help: "stop after this long, e.g. 30m (exit 3)",
    ...BUDGET,
    parse: parseTimeLimit,
  },
  {
    key: "maxCost",
    flags: "--max-cost <usd>",
    help: "stop after this many US dollars (exit 3)",
    ...BUDGET,
    parse: positiveNumber,
  },
  {
    // One start's: a resumed session's kernel variables are restored instead.
    key: "var",
    flags: "--var <NAME=TEXT|NAME=@FILE>",
    help: "put text or a file's content in a kernel variable (repeatable)",
    kind: "list",
    sections: ["session"],
    remember: false,
    checkedAbove: true,
    inherit: "variables",
  },
  {
    key: "cellTimeout",
    flags: "--cell-timeout <seconds>",
    help: "interrupt a cell after this many seconds (default 300)",
    ...SESSION,
    parse: positiveNumber,
  },
  {
    key: "maxDepth",
    flags: "--max-depth <n>",
    help: "how deep sub-agents may nest; 0 disables rlm() (default 2)",
    ...SESSION,
    parse: wholeOrZero,
  },
  {
    key: "passEnv",
    flags: "--pass-env <NAME>",
    help: "let a secret-looking variable through to the kernel (repeatable)",
    ...SESSION,
    kind: "list",
  },
  {
    key: "learn",
    flags: "--learn",
    help: "review the work during the session and keep checked lessons (docs/harness.md)",
    ...SESSION,
    kind: "switch",
  },
  {
    key: "learnVerifyShare",
    flags: "--learn-verify-share <fraction>",
    help: "with --learn: the share of what is left of the budgets a background replay check of an improved lesson may spend; 0: none (default 0.2)",
    ...SESSION,
    parse: fraction,
  },
  {
    key: "kernel",
    flags: "--kernel <URI>",
    // The targets of kernel/launchers/index.ts (SCHEMES), which this layer cannot import; the test of
    // this help (test/e2e/cli/run-options.test.ts) checks it lists every one its error lists.
    help: "where kernels run: local, sandbox, cmd:COMMAND, ssh://[user@]host[:port][/workdir], slurm://[partition], container://[IMAGE] (podman or docker), k8s://[context/]namespace (docs/launchers.md)",
    ...SESSION,
    checkedAbove: true,
  },
  {
    // Commander names the value by the last long flag: `mode`; --permission-mode is Claude Code's word.
    key: "mode",
    flags: "--permission-mode, --mode <name>",
    help: "plan (read-only), workspace (writable project, read-only system, no network) or full (no sandbox); default: workspace where bubblewrap works (docs/sandbox.md)",
    ...SESSION,
    setting: "mode",
    checkedAbove: true,
  },
  {
    key: "sandbox",
    flags: "--sandbox",
    help: "the same as --mode workspace",
    ...SESSION,
    kind: "switch",
    setting: "mode",
  },
  {
    key: "allowNet",
    flags: "--allow-net [HOST[:PORT]]",
    help: "sandbox: network to all, or to HOST[:PORT] only (repeatable)",
    ...SESSION,
    kind: "list",
    preset: "*",
    checkedAbove: true,
  },
  {
    key: "approve",
    flags: "--approve <policy>",
    help: "who answers the agent's requests for more (a host, a command outside the sandbox, a write, a mode): never, ask (a person; the default) or auto (docs/sandbox.md)",
    ...SESSION,
    checkedAbove: true,
  },
  {
    key: "allowWeb",
    flags: "--allow-web <HOST[,HOST]>",
    help: "hosts fetch() may reach (repeatable; needed in the sandbox; docs/toolkit.md)",
    ...SESSION,
    kind: "list",
    checkedAbove: true,
  },
  {
    // Made absolute when passed on or remembered: a host may run in another directory.
    key: "mcpConfig",
    flags: "--mcp-config <FILE>",
    help: 'MCP servers for this session only, from a {"mcpServers": ...} file; they win over configured ones of the same name (repeatable; docs/mcp.md)',
    ...SESSION,
    kind: "list",
  },
] as const satisfies readonly OptionDef[];

type Entry = (typeof OPTIONS)[number];
type ValueOf<K extends OptionKind> = K extends "value" ? string : K extends "list" ? string[] : boolean;

/** Every option's value as commander gives it (camelCase keys; lists are [] when not given). */
export type SessionSpec = { [E in Entry as E["key"]]?: ValueOf<E["kind"]> };
export type OptionKey = keyof SessionSpec;
/** The options whose value is a number (they have a parse). */
type NumberKey = Extract<Entry, { parse: unknown }>["key"];

const BY_KEY = new Map<string, OptionDef>(OPTIONS.map((o) => [o.key, o]));

/** The option's long flag: `--max-turns`; of two, the last (commander's name for it: `--mode`). */
export function flagOf(def: OptionDef): string {
  return def.flags
    .split(/[\s,]+/)
    .filter((w) => w.startsWith("--"))
    .at(-1) as string;
}

/** Given on the command line: a value, a switch that is on, a list with entries (commander's default is []). */
export function given(value: unknown): boolean {
  return typeof value === "string" || value === true || (Array.isArray(value) && value.length > 0);
}

/** A number option's value, checked (a UsageError naming the flag), or undefined when not given. */
export function numberOf(spec: SessionSpec, key: NumberKey): number | undefined {
  const text = spec[key];
  if (text === undefined) return undefined;
  const def = BY_KEY.get(key) as OptionDef;
  return def.parse?.(text, flagOf(def));
}

/** The options whose value a layer above checks (`checkedAbove`). */
type CheckedAboveKey = Extract<Entry, { checkedAbove: true }>["key"];

/** One check for each option a layer above checks, given its value and what that layer's `context` holds. */
export type AboveChecks<C> = {
  readonly [K in CheckedAboveKey]: (value: NonNullable<SessionSpec[K]>, context: C) => void;
};

/**
 * Every option given in `spec` checked, in the table's order: a number by its parse, a value a layer
 * above knows by `above` (with `context`). Throws a UsageError naming the flag.
 */
export function checkSpec<C>(spec: SessionSpec, above: AboveChecks<C>, context: C): void {
  for (const def of OPTIONS as readonly OptionDef[]) {
    const value = spec[def.key as OptionKey];
    if (!given(value)) continue;
    if (def.parse) def.parse(value as string, flagOf(def));
    const check = def.checkedAbove && (above[def.key as CheckedAboveKey] as (v: unknown, c: C) => void);
    if (check) check(value, context);
  }
}

/** Checks the value of each of `keys` given in `spec` (every number option when none are named). */
export function checkNumbers(spec: SessionSpec, keys?: readonly NumberKey[]): void {
  for (const def of OPTIONS) {
    if (!("parse" in def) || (keys && !keys.includes(def.key))) continue;
    numberOf(spec, def.key);
  }
}
