// The session flags a new session host is started with, as its command-line words: the one list that
// `relm run --detach` (cli/launch.ts), `relm acp` / `relm mcp serve` (cli/host-args.ts) and the terminal
// UI (tui/main.ts) all use, so a flag added to `relm run` reaches every host (test/host/host-args.test.ts
// fails when a `relm run` option is neither here nor in NOT_PASSED_TO_HOSTS). The host checks them again.
import { resolve } from "node:path";
import { sandboxArgs } from "../kernel/sandbox/policy.js";

/** The session flags as commander gives them (camelCase keys, strings, booleans, repeatable lists). */
export interface HostFlagsRecord {
  provider?: string;
  baseUrl?: string;
  model?: string;
  thinking?: string;
  maxTurns?: string;
  maxTokens?: string;
  maxTime?: string;
  maxCost?: string;
  var?: string[];
  cellTimeout?: string;
  passEnv?: string[];
  maxDepth?: string;
  learn?: boolean;
  kernel?: string;
  sandbox?: boolean;
  allowNet?: string[];
  allowWeb?: string[];
  idleTimeout?: string;
  gate?: string[];
  gateTimeout?: string;
  maxGateFailures?: string;
  goal?: string;
  autonomous?: boolean;
  unattended?: boolean;
  interactive?: boolean;
  mcpConfig?: string[];
}

type Kind = "value" | "list" | "switch";
type Group = "session" | "budget" | "variables" | "task";

/** Every flag passed on: its key, its word, how it is written, and the group a caller may leave out. */
export const HOST_FLAGS: readonly { key: keyof HostFlagsRecord; flag: string; kind: Kind; group: Group }[] = [
  { key: "provider", flag: "--provider", kind: "value", group: "session" },
  { key: "baseUrl", flag: "--base-url", kind: "value", group: "session" },
  { key: "model", flag: "--model", kind: "value", group: "session" },
  { key: "thinking", flag: "--thinking", kind: "value", group: "session" },
  { key: "maxTurns", flag: "--max-turns", kind: "value", group: "budget" },
  { key: "maxTokens", flag: "--max-tokens", kind: "value", group: "budget" },
  { key: "maxTime", flag: "--max-time", kind: "value", group: "budget" },
  { key: "maxCost", flag: "--max-cost", kind: "value", group: "budget" },
  { key: "cellTimeout", flag: "--cell-timeout", kind: "value", group: "session" },
  { key: "maxDepth", flag: "--max-depth", kind: "value", group: "session" },
  { key: "idleTimeout", flag: "--idle-timeout", kind: "value", group: "session" },
  { key: "kernel", flag: "--kernel", kind: "value", group: "session" },
  { key: "var", flag: "--var", kind: "list", group: "variables" },
  { key: "passEnv", flag: "--pass-env", kind: "list", group: "session" },
  { key: "learn", flag: "--learn", kind: "switch", group: "session" },
  { key: "allowWeb", flag: "--allow-web", kind: "list", group: "session" },
  // Made absolute: a host may run in another directory (relm acp's hosts run in the editor's project).
  { key: "mcpConfig", flag: "--mcp-config", kind: "list", group: "session" },
  // --sandbox and --allow-net are written by sandboxArgs (kernel/sandbox/policy.ts).
  { key: "sandbox", flag: "--sandbox", kind: "switch", group: "session" },
  { key: "allowNet", flag: "--allow-net", kind: "list", group: "session" },
  { key: "gate", flag: "--gate", kind: "list", group: "task" },
  { key: "gateTimeout", flag: "--gate-timeout", kind: "value", group: "task" },
  { key: "maxGateFailures", flag: "--max-gate-failures", kind: "value", group: "task" },
  { key: "goal", flag: "--goal", kind: "value", group: "task" },
  { key: "autonomous", flag: "--autonomous", kind: "switch", group: "task" },
  { key: "unattended", flag: "--unattended", kind: "switch", group: "task" },
  { key: "interactive", flag: "--interactive", kind: "switch", group: "task" },
];

/** `relm run` options deliberately not given to a host, and why (commander's attribute names). */
export const NOT_PASSED_TO_HOSTS: Readonly<Record<string, string>> = {
  json: "how this terminal prints events; a host has no terminal",
  detach: "what made this process start the host",
  resume: "the launcher gives --resume ID itself",
  asHost: "the launcher gives --as-host ID itself",
  awaitClient: "only the terminal UI gives it, to the host it starts for its own first message",
  adopt: "only an idle session's stub gives it, to the host it starts again (src/host/handoff.ts)",
};

export interface HostArgsOptions {
  /** false: no budget flags (the MCP server caps each task itself). Default true. */
  budgets?: boolean;
  /** false: no --var (front ends serving many tasks refuse it; each task gives its own). Default true. */
  variables?: boolean;
  /**
   * false: no per-task flags (gates, goal, autonomy): the terminal UI asks for those per session and
   * adds them itself. Default true.
   */
  task?: boolean;
}

/** The flags as words for `relm run --as-host ID ...`. */
export function hostArgsOf(flags: HostFlagsRecord, options: HostArgsOptions = {}): string[] {
  const skip = new Set<Group>();
  if (options.budgets === false) skip.add("budget");
  if (options.variables === false) skip.add("variables");
  if (options.task === false) skip.add("task");
  const args: string[] = [];
  for (const { key, flag, kind, group } of HOST_FLAGS) {
    if (skip.has(group) || key === "sandbox" || key === "allowNet") continue;
    const value = flags[key];
    if (kind === "value" && typeof value === "string") args.push(flag, value);
    else if (kind === "list" && Array.isArray(value))
      for (const v of value) args.push(flag, key === "mcpConfig" ? resolve(v) : v);
    else if (kind === "switch" && value === true) args.push(flag);
  }
  args.push(...sandboxArgs(flags));
  return args;
}
