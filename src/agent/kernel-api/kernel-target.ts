// Which launcher an agent's kernel starts through (docs/launchers.md). The root's target comes from
// `--kernel` or config `kernel`; a child's from `rlm.spawn(..., kernel=...)`/`rlm.map(..., kernel=...)`,
// else its spec's `kernel:`, else its parent's. `local` and `sandbox` are the tree's own launcher (its
// sandbox when the session has one, which children fork inside); any other URI gets its own launcher,
// and kernels started through it are spawned, never forked (there is no template over there).
import { parseKernelUri } from "../../kernel/launchers/index.js";
import type { Launcher } from "../../kernel/launchers/types.js";

interface KernelTarget {
  /** undefined: the tree's own launcher (none, or its sandbox). */
  launcher: Launcher | undefined;
  /** Children may be forked from the tree's warm template. */
  forkable: boolean;
}

/** A checked kernel URI, or undefined for none; a bad one is a UsageError naming `where`. */
export function checkKernelUri(uri: string | undefined, where: string): string | undefined {
  if (uri === undefined || !uri.trim()) return undefined;
  parseKernelUri(uri, where);
  return uri.trim();
}

/**
 * What decides whether a kernel URI that code chose may start its launcher: whether the tree is
 * sandboxed, and the URI the user gave it (`--kernel`, RELM_KERNEL_URI, config `kernel`).
 */
export interface KernelPolicy {
  sandboxed: boolean;
  userUri: string | undefined;
}

/**
 * True when a kernel URI chosen inside a sandboxed tree (a cell's `rlm(..., kernel=...)`, a project
 * spec's `kernel:`) would leave the sandbox. Every launcher but the tree's own (`local`, `sandbox`) runs
 * a command on the host: `cmd:` runs it as written, ssh/container/slurm/k8s run their clients here with
 * the user's credentials. Only the user picks one: the URI the user gave the session is accepted, so
 * children may still run where the root does.
 */
export function escapesSandbox(uri: string, policy: KernelPolicy): boolean {
  if (!policy.sandboxed) return false;
  const scheme = parseKernelUri(uri, "kernel").scheme;
  if (scheme === "local" || scheme === "sandbox") return false;
  return policy.userUri === undefined || uri.trim() !== policy.userUri.trim();
}

/** What a refused kernel URI's error says after naming where the URI came from. */
export function sandboxRefusal(uri: string, policy: KernelPolicy): string {
  const own = policy.userUri ? ` or the session's own --kernel "${policy.userUri}"` : "";
  return (
    `kernel "${uri.trim()}" refused: this session runs with --sandbox, and that kernel would start a ` +
    `command on the host, outside the sandbox. A sub-agent's kernel may only be "local" or "sandbox" ` +
    `(this sandbox)${own}`
  );
}

/**
 * The launcher for an agent whose kernel target is `uri` (undefined: the tree's default); `treeLauncher`
 * gives the tree's own (its sandbox, opened on first use) or undefined.
 */
export async function kernelTarget(
  uri: string | undefined,
  treeLauncher: () => Promise<Launcher | undefined>,
): Promise<KernelTarget> {
  const parsed = uri ? parseKernelUri(uri, "kernel") : undefined;
  if (parsed && parsed.scheme !== "local" && parsed.scheme !== "sandbox") {
    return { launcher: parsed, forkable: parsed.forkable };
  }
  const own = await treeLauncher(); // the tree's sandbox, if any
  if (parsed?.scheme === "sandbox" && !own) {
    // Never run a kernel that was asked to be sandboxed without the sandbox.
    throw new Error('kernel "sandbox" needs the session to run with --sandbox (or sandbox in config.json)');
  }
  return { launcher: own, forkable: true };
}
