// `--sandbox`, `--allow-net [HOST[:PORT]]`, RELM_SANDBOX / RELM_ALLOW_NET and config.json's `sandbox` /
// `allowNet`: the sandbox a session's kernels run in (docs/sandbox.md). Flags over environment over config.
import type { ResolvedConfig } from "../config/config.js";
import { ConfigError } from "../config/errors.js";
import { sandboxSettingsOf, sandboxUnavailable } from "../kernel/sandbox/index.js";
import type { SandboxSettings } from "../kernel/sandbox/types.js";

interface SandboxFlags {
  sandbox?: boolean;
  allowNet?: string[];
  /** `--kernel sandbox` asks for the sandbox as `--sandbox` does. */
  kernel?: string;
}

const MODES = ["off", "workspace", "strict"] as const;

function envMode(env: NodeJS.ProcessEnv): (typeof MODES)[number] | undefined {
  const value = env.RELM_SANDBOX?.trim().toLowerCase();
  if (!value) return undefined;
  if ((MODES as readonly string[]).includes(value)) return value as (typeof MODES)[number];
  throw new ConfigError(`RELM_SANDBOX must be off, workspace or strict, got "${env.RELM_SANDBOX}"`);
}

/** The session's sandbox, checked (bad values, bubblewrap missing), or undefined for none. */
export function sandboxOf(
  flags: SandboxFlags,
  config: Pick<ResolvedConfig, "sandbox" | "allowNet">,
  env: NodeJS.ProcessEnv,
): SandboxSettings | undefined {
  const envNet = env.RELM_ALLOW_NET?.split(/[\s,]+/).filter(Boolean);
  const flagNet = flags.allowNet && flags.allowNet.length > 0 ? flags.allowNet : undefined;
  const settings = sandboxSettingsOf(
    { sandbox: flags.sandbox || flags.kernel?.trim() === "sandbox", allowNet: flagNet ?? envNet },
    envMode(env) ?? config.sandbox,
    config.allowNet,
  );
  if (settings) {
    const missing = sandboxUnavailable(env);
    if (missing) throw new ConfigError(missing);
  }
  return settings;
}
