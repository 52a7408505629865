// `relm doctor`'s line about where kernels run (`--kernel` or config.json's `kernel`):
// whether the Python over there has IPython. Without it cells run as plain Python, where `!cmd` and
// `%magic` are syntax errors (the model is told so). Local and sandboxed kernels run the python line's
// interpreter; ssh, container and cmd: kernels are asked by running the interpreter probe through the
// same command line a kernel starts with; Slurm and Kubernetes are not (that would submit a job or a pod),
// only checked for what would stop a start (Launcher.preflight: srun and the partition, through sinfo).

import { checkKernelUri } from "../../agent/kernel-api/kernel-target.js";
import { ConfigError } from "../../config/errors.js";
import { probeRemotePython, scrubEnvironment } from "../../kernel/index.js";
import { parseKernelUri } from "../../kernel/launchers/index.js";
import { type Check, check } from "./check.js";

const PROBED = new Set(["ssh", "container", "cmd"]);

/**
 * The session's kernel URI: `--kernel`, else config.json's `kernel`; checked (a bad flag is a usage error,
 * exit 2; a bad config a ConfigError). A session (cli/setup.ts) and `relm doctor` both ask this.
 */
export function kernelUriOf(
  flag: string | undefined,
  config: { kernel?: string; configPath: string },
): string | undefined {
  if (flag !== undefined) return checkKernelUri(flag, "--kernel");
  try {
    return checkKernelUri(config.kernel, `${config.configPath}: kernel`);
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
}

/** The line for kernel URI `uri` (undefined: none set, no line). */
export async function kernelCheck(
  uri: string | undefined,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<Check | undefined> {
  if (uri === undefined) return undefined;
  const launcher = parseKernelUri(uri, "kernel");
  if (launcher.transport === "local")
    return check("kernel", true, `${uri}: runs the interpreter of the python line`);
  const python = launcher.python ?? "python3";
  if (!PROBED.has(launcher.scheme)) {
    const problem = await launcher.preflight?.(scrubEnvironment(env));
    if (problem) return check("kernel", false, `${uri}: ${problem}`);
    const start = launcher.scheme === "slurm" ? "submits a Slurm job" : "starts a pod";
    return check(
      "kernel",
      true,
      `${uri}: ${python} there not probed (starting it ${start}); a session's prompt says whether it has IPython once its kernel starts`,
    );
  }
  try {
    // The kernel's own environment: scrubbed of secrets, as every kernel start is.
    const found = await probeRemotePython(launcher, { cwd, env: scrubEnvironment(env) });
    const checked = `checked by running ${python} through it`;
    if (found.ipython)
      return check(
        "kernel",
        true,
        `${uri}: ${found.path} (Python ${found.version}, IPython ${found.ipython}; ${checked})`,
      );
    const fix =
      launcher.scheme === "cmd"
        ? "Install IPython for the python3 that command runs"
        : `Install IPython there (\`${python} -m pip install ipython\`, or the system's python3-ipython), or name an interpreter that has it with ?python=PATH`;
    return check(
      "kernel",
      "warn",
      `${uri}: ${found.path} (Python ${found.version}) has no IPython (${checked}): cells run as plain ` +
        `Python without !commands or %magics, and the model is told so. ${fix}.`,
    );
  } catch (error) {
    return check("kernel", false, `${uri}: could not run ${python} through it: ${(error as Error).message}`);
  }
}
