// `sandbox`: the local runner inside the session's sandbox (src/kernel/sandbox/): bubblewrap on Linux,
// sandbox-exec on macOS. Kernels of child agents are forked from a warm template that runs inside the
// same sandbox (the template is started through this launcher too), so they inherit it.
import type { KernelSandbox, ProcessWrapper } from "../sandbox/types.js";
import type { LaunchCommand, LaunchContext, Launcher, LauncherScheme } from "./types.js";
import { launcherUsage } from "./uri.js";

const SANDBOX_URI = "sandbox";
/** What the sandbox launcher is before and after it is opened: local, and forkable (from a template in it). */
const SANDBOX = { uri: SANDBOX_URI, scheme: "sandbox", transport: "local", forkable: true } as const;

/** The launcher of one opened sandbox (one per session tree: its kernels and its template share it). */
export function sandboxLauncher(sandbox: KernelSandbox): Launcher & ProcessWrapper {
  // Forkable from a template that is itself in this sandbox: fork-link.ts refuses any other template.
  return {
    ...SANDBOX,
    command(ctx: LaunchContext, sockets?: string[]): LaunchCommand {
      const [file, ...args] = ctx.inner;
      // Always relm's runner or warm template here.
      return sandbox.wrap({ file: file!, args, env: ctx.env, cwd: ctx.cwd }, sockets, true);
    },
    hostPid: (outer, inner) => sandbox.hostPid(outer, inner),
    forkEnv: (env) => sandbox.env(env),
  };
}

/**
 * `--kernel sandbox` / config `kernel: sandbox`: parsed here, opened per session (it needs the
 * session's folders and its --allow-net list), so the parsed launcher only marks the wish; the agent
 * layer opens the sandbox and uses sandboxLauncher() instead.
 */
export const sandboxScheme: LauncherScheme = {
  scheme: "sandbox",
  syntax: "sandbox",
  parse: (uri: string, where: string): Launcher => {
    if (uri !== SANDBOX_URI)
      throw launcherUsage(
        where,
        uri,
        "the sandbox takes no options",
        "Use sandbox, with --allow-net for network.",
      );
    return {
      ...SANDBOX,
      command(): LaunchCommand {
        throw new Error("the sandbox launcher is opened per session (sandboxLauncher)");
      },
    };
  },
};
