// The session's permission mode and its sandbox (docs/sandbox.md): `--mode NAME` (`--permission-mode`),
// `--sandbox` (= `--mode workspace`), `--kernel sandbox` (the hosts the terminal UI starts get these in
// their spec file), then RELM_MODE (RELM_SANDBOX is the older word), then
// config.json's `mode` (or its older `sandbox`), then the default: workspace where bubblewrap works
// (the doctor's trial, cached per user), else full with a warning that says how to get the sandbox.
// `--allow-net` / RELM_ALLOW_NET / config `allowNet` and config `sandbox: strict` shape the sandbox.
import type { ResolvedConfig } from "../config/config.js";
import { ConfigError, UsageError } from "../config/errors.js";
import { type PermissionMode, parseMode, sandboxed } from "../config/permission-mode.js";
import { cachedProbe, netPolicyOf, sandboxRefusal, settingsForMode } from "../kernel/sandbox/index.js";
import type { NetPolicy, SandboxMode, SandboxSettings } from "../kernel/sandbox/types.js";

interface SandboxFlags {
  mode?: string;
  sandbox?: boolean;
  allowNet?: string[];
  /** `--kernel sandbox` asks for the sandbox as `--sandbox` does. */
  kernel?: string;
}

/** How the session's mode was chosen. */
type ModeSource = "flag" | "environment" | "config" | "default";

interface ModeChoice {
  mode: PermissionMode;
  source: ModeSource;
  /** What a sandboxed mode is made of, whichever mode runs now (a /mode switch or a child uses it). */
  level: SandboxMode;
  net: NetPolicy;
  /** The sandbox of `mode` (undefined for full). */
  settings: SandboxSettings | undefined;
  /** Set when the default had to be full: why, and how to get the sandbox (one line). */
  warning?: string;
}

const SANDBOX_WORDS = ["off", "workspace", "strict"] as const;
type SandboxWord = (typeof SANDBOX_WORDS)[number];

function envSandbox(env: NodeJS.ProcessEnv): SandboxWord | undefined {
  const value = env.RELM_SANDBOX?.trim().toLowerCase();
  if (!value) return undefined;
  if ((SANDBOX_WORDS as readonly string[]).includes(value)) return value as SandboxWord;
  throw new ConfigError(`RELM_SANDBOX must be off, workspace or strict, got "${env.RELM_SANDBOX}"`);
}

/** The mode asked for by the flags, with the words that asked (for messages); undefined: none given. */
function flagMode(flags: SandboxFlags): { mode: PermissionMode; asked: string } | undefined {
  const named = flags.mode?.trim() ? parseMode(flags.mode, "--mode") : undefined;
  const boxed = flags.sandbox
    ? "--sandbox"
    : flags.kernel?.trim() === "sandbox"
      ? "--kernel sandbox"
      : undefined;
  if (named && boxed && named !== "workspace" && !(named === "plan" && boxed === "--kernel sandbox")) {
    throw new UsageError(
      `${boxed} is --mode workspace, and --mode says ${named}: give one of them (docs/sandbox.md)`,
    );
  }
  if (named) return { mode: named, asked: `--mode ${named}` };
  return boxed ? { mode: "workspace", asked: boxed } : undefined;
}

/** The mode chosen by flags, environment or config, with how; undefined: none, the default decides. */
function chosenMode(
  flags: SandboxFlags,
  config: Pick<ResolvedConfig, "mode" | "sandbox" | "configPath">,
  env: NodeJS.ProcessEnv,
): { mode: PermissionMode; source: ModeSource; asked: string } | undefined {
  const flag = flagMode(flags);
  if (flag) return { ...flag, source: "flag" };
  if (env.RELM_MODE?.trim()) {
    const mode = parseMode(env.RELM_MODE, "RELM_MODE");
    return { mode, source: "environment", asked: `RELM_MODE=${mode}` };
  }
  const word = envSandbox(env);
  if (word) {
    const mode = word === "off" ? "full" : "workspace";
    return { mode, source: "environment", asked: `RELM_SANDBOX=${word}` };
  }
  if (config.mode !== undefined) {
    const mode = parseMode(config.mode, `${config.configPath}: mode`);
    return { mode, source: "config", asked: `mode "${mode}" in ${config.configPath}` };
  }
  if (config.sandbox !== undefined) {
    const mode = config.sandbox === "off" ? "full" : "workspace";
    return { mode, source: "config", asked: `sandbox "${config.sandbox}" in ${config.configPath}` };
  }
  return undefined;
}

/**
 * The mode RELM_MODE, RELM_SANDBOX or config.json names for new sessions, as a session started without
 * flags chooses it (with the words that named it); undefined: none does, the default decides. A bad
 * word is a UsageError naming where it was (relm doctor reports it).
 */
export function configuredMode(
  config: Pick<ResolvedConfig, "mode" | "sandbox" | "configPath">,
  env: NodeJS.ProcessEnv,
): { mode: PermissionMode; asked: string } | undefined {
  return chosenMode({}, config, env);
}

/**
 * The default where nothing names a mode: workspace where the sandbox works, else full and why. Inside
 * relm's own sandbox (a relm a cell started) it is full, quietly: that relm is confined already.
 */
function defaultMode(env: NodeJS.ProcessEnv, cacheDir: string): { mode: PermissionMode; warning?: string } {
  if (env.RELM_IN_SANDBOX) return { mode: "full" };
  if (process.platform === "darwin")
    return {
      mode: "full",
      warning:
        "no sandbox: on macOS relm runs kernels unconfined by default (its sandbox-exec profile is untested); --mode workspace tries it",
    };
  const probe = cachedProbe(env, cacheDir);
  if (probe.ok) return { mode: "workspace" };
  return {
    mode: "full",
    warning: `no sandbox: ${probe.detail}, so kernels run with your rights (--mode full); to sandbox them, ${probe.fix ?? "see relm doctor"}`,
  };
}

/**
 * The session's permission mode and its sandbox, checked: a bad word or flag pair is a UsageError, a
 * sandboxed mode asked for on a machine without bubblewrap a ConfigError saying what to install.
 */
export function modeOf(
  flags: SandboxFlags,
  config: Pick<ResolvedConfig, "mode" | "sandbox" | "allowNet" | "configPath">,
  env: NodeJS.ProcessEnv,
  cacheDir: string,
  /** The user sends the kernels elsewhere (`--kernel ssh://…`): this machine's sandbox is not the default. */
  remoteKernel = false,
): ModeChoice {
  const envNet = env.RELM_ALLOW_NET?.split(/[\s,]+/).filter(Boolean);
  const flagNet = flags.allowNet && flags.allowNet.length > 0 ? flags.allowNet : undefined;
  const given = flagNet ?? envNet;
  const net = netPolicyOf(given ?? config.allowNet);
  const level: SandboxMode = (envSandbox(env) ?? config.sandbox) === "strict" ? "strict" : "workspace";
  const chosen = chosenMode(flags, config, env);
  const fallback = chosen ? undefined : remoteKernel ? { mode: "full" as const } : defaultMode(env, cacheDir);
  const mode = chosen?.mode ?? (fallback as { mode: PermissionMode }).mode;
  if (given && given.length > 0 && !sandboxed(mode)) {
    const why = chosen
      ? `this session runs with --mode full (${chosen.asked})`
      : fallback?.warning
        ? `the sandbox does not work here (${fallback.warning})`
        : "this session runs in full mode (its kernels run elsewhere, or inside relm's sandbox already)";
    throw new UsageError(
      `--allow-net applies to a sandboxed kernel (--mode workspace or plan), and ${why}; leave --allow-net out, or add --sandbox`,
    );
  }
  if (chosen && sandboxed(chosen.mode)) {
    const refusal = sandboxRefusal(env, cacheDir, chosen.asked);
    if (refusal) throw new ConfigError(refusal);
  }
  return {
    mode,
    source: chosen?.source ?? "default",
    level,
    net,
    settings: settingsForMode(mode, level, net),
    ...(fallback?.warning ? { warning: fallback.warning } : {}),
  };
}

/**
 * True for a kernel URI that sends kernels off this machine's sandbox (`ssh://…`, `cmd:…`, slurm, k8s):
 * with one the default mode stays full (modeOf's `remoteKernel`).
 */
export function isRemoteKernel(uri: string | undefined): boolean {
  if (!uri?.trim()) return false;
  const scheme = uri.trim().split(":")[0] ?? "";
  return scheme !== "local" && scheme !== "sandbox";
}
