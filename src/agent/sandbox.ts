// The sandbox of one agent tree (docs/sandbox.md): opened when its first kernel starts, shared by the
// root kernel and the warm template children fork from, closed with the tree.
import { KERNEL_MARKER, scrubEnvironment } from "../kernel/index.js";
import { sandboxLauncher } from "../kernel/launchers/sandbox.js";
import { openSandbox } from "../kernel/sandbox/index.js";
import type { KernelSandbox } from "../kernel/sandbox/types.js";
import type { PythonInfo } from "../kernel/types.js";
import { sessionDir } from "../session/index.js";
import type { GateOptions } from "./gates.js";
import type { KernelSettings, TreeOptions } from "./tree.js";

export type SandboxLauncher = ReturnType<typeof sandboxLauncher> & { sandbox: KernelSandbox };

/** The tree's sandbox launcher, or undefined when its kernels run unsandboxed. */
export async function openTreeSandbox(
  options: TreeOptions,
  python: PythonInfo,
): Promise<SandboxLauncher | undefined> {
  const settings = options.kernel.sandbox;
  if (!settings) return undefined;
  // Kernels carry the root session's id (markKernels): its folders are the ones they may write.
  const root = options.kernel.env[KERNEL_MARKER];
  const sandbox = await openSandbox({
    settings,
    project: options.cwd,
    sessionDir: root ? sessionDir(options.home, root) : undefined,
    relmHome: options.home,
    env: options.kernel.env,
    python: python.path,
  });
  return Object.assign(sandboxLauncher(sandbox), { sandbox });
}

/**
 * How a sandboxed tree's gates run: inside its sandbox, as its kernels do (same mounts, same network
 * policy), with the kernels' environment (no API keys). A gate is a command line, but the script it
 * runs usually sits in the project, which the kernels can rewrite: on the host it would run their code.
 */
export function confinedGates(
  launcher: SandboxLauncher,
  kernel: KernelSettings,
): Pick<GateOptions, "env" | "wrap"> {
  const env = scrubEnvironment(kernel.env, kernel.passEnv);
  // The gate's Python is the project's business: relm's package on its path is for kernels only.
  env.PYTHONPATH = kernel.env.PYTHONPATH;
  if (env.PYTHONPATH === undefined) delete env.PYTHONPATH;
  return { env, wrap: (command) => launcher.sandbox.wrap(command) };
}
