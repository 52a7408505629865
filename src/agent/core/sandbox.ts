// The sandbox of one agent tree (docs/sandbox.md): opened when its first kernel starts, shared by the
// root kernel and the warm template children fork from, closed with the tree.
import { existsSync } from "node:fs";
import { basename, dirname } from "node:path";
import { KERNEL_MARKER, scrubEnvironment } from "../../kernel/index.js";
import { sandboxLauncher } from "../../kernel/launchers/sandbox.js";
import { openSandbox } from "../../kernel/sandbox/index.js";
import type { KernelSandbox, SandboxSettings } from "../../kernel/sandbox/types.js";
import type { PythonInfo } from "../../kernel/types.js";
import { sessionDir } from "../../session/index.js";
import type { GateOptions } from "../gates/gates.js";
import type { KernelSettings, TreeOptions } from "./tree-options.js";

export type SandboxLauncher = ReturnType<typeof sandboxLauncher> & {
  sandbox: KernelSandbox;
  /** Ends what opening it set up on the host besides the sandbox (the project harness's lock). */
  release(): void;
};

/**
 * What the host (relm, and git when the user reviews the work) reads from the project and obeys, shown
 * read-only inside the sandbox (docs/sandbox.md): `.git` (config, hooks: a planted core.fsmonitor, alias
 * or hook would run at the user's next `git status`), `.relm` (sub-agent specs, the project harness,
 * `.relm/mcp.json`) and `.mcp.json` (MCP servers). Nothing the kernels write there today: the harness is
 * written by the host, from outside.
 */
const HOST_READ_FILES = [".git", ".relm", ".mcp.json"] as const;

/** What the user should know about one of HOST_READ_FILES that appeared during the session. */
const CREATED_ADVICE: Record<(typeof HOST_READ_FILES)[number], string> = {
  ".git":
    "look at its config and hooks before you run git there (a core.fsmonitor, alias or hook in it runs with your rights)",
  ".relm":
    "review its sub-agent specs, MCP servers and harness entries before a session without --sandbox uses them",
  ".mcp.json": "review its servers before you approve them",
};

/**
 * Warnings for files of HOST_READ_FILES that did not exist when the sandbox opened (so could not be
 * made read-only in it) and exist now: sandboxed code made them, or could have changed them since (the
 * host creating .relm/harness/ mid-session is one way). `told` keeps each said once.
 */
export function createdByTheSandbox(sandbox: KernelSandbox, told: Set<string>): string[] {
  const out: string[] = [];
  for (const file of sandbox.unprotected) {
    if (told.has(file) || !existsSync(file)) continue;
    told.add(file);
    const name = basename(file) as keyof typeof CREATED_ADVICE;
    out.push(
      `${file} appeared during this sandboxed session (it did not exist when the sandbox started, so ` +
        `sandboxed code can write it): treat it as untrusted; ${CREATED_ADVICE[name] ?? "review it"}`,
    );
  }
  return out;
}

/** A sandbox launcher of the tree (`settings`: one mode's sandbox), or undefined for none (mode full). */
export async function openTreeSandbox(
  options: TreeOptions,
  python: PythonInfo,
  settings: SandboxSettings | undefined,
): Promise<SandboxLauncher | undefined> {
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
    protect: HOST_READ_FILES,
  });
  // No .relm/ to show read-only: whatever relm would create there (the project harness) is writable
  // inside, so relm writes none of it while this sandbox runs.
  const dotRelm = sandbox.unprotected.find((p) => basename(p) === ".relm");
  const lock = options.hooks?.lockProject;
  const release = dotRelm && lock ? lock(dirname(dotRelm)) : () => {};
  return Object.assign(sandboxLauncher(sandbox), { sandbox, release });
}

/**
 * How a sandboxed tree's gates run: inside its sandbox, as its kernels do (same mounts, same network
 * policy), with the kernels' environment (no API keys). A gate is a command line, but the script it
 * runs usually sits in the project, which the kernels can rewrite: on the host it would run their code.
 */
export function confinedGates(
  launcher: SandboxLauncher,
  kernel: KernelSettings,
): Required<Pick<GateOptions, "env" | "wrap">> {
  return { env: gateEnvironment(kernel), wrap: (command) => launcher.sandbox.wrap(command) };
}

/**
 * The environment every gate runs with, sandboxed or not: the kernels' (no API keys or other secrets;
 * `--pass-env` names still pass). A gate runs project code (a test suite the agent just changed), so it
 * gets no more of the user's secrets than the agent's own cells do.
 */
export function gateEnvironment(kernel: KernelSettings): NodeJS.ProcessEnv {
  const env = scrubEnvironment(kernel.env, kernel.passEnv);
  // The gate's Python is the project's business: relm's package on its path is for kernels only.
  env.PYTHONPATH = kernel.env.PYTHONPATH;
  if (env.PYTHONPATH === undefined) delete env.PYTHONPATH;
  return env;
}
