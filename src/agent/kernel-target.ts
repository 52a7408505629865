// Which launcher an agent's kernel starts through (docs/launchers.md). The root's target comes from
// `--kernel` or config `kernel`; a child's from `rlm.spawn(..., kernel=...)`/`rlm.map(..., kernel=...)`,
// else its spec's `kernel:`, else its parent's. `local` and `sandbox` are the tree's own launcher (its
// sandbox when the session has one, which children fork inside); any other URI gets its own launcher,
// and kernels started through it are spawned, never forked (there is no template over there).
import { parseKernelUri } from "../kernel/launchers/index.js";
import type { Launcher } from "../kernel/launchers/types.js";

export interface KernelTarget {
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
