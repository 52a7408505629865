// `local`: the runner as a child of this process, sharing its disk; kernels of child agents are forked
// from the warm template. The default, and the fast path: its command is the runner's own argv.
import type { LaunchCommand, LaunchContext, Launcher, LauncherScheme } from "./types.js";

export const LOCAL: Launcher = {
  uri: "local",
  scheme: "local",
  transport: "local",
  forkable: true,
  command(ctx: LaunchContext): LaunchCommand {
    const [file, ...args] = ctx.inner;
    return { file: file!, args };
  },
};

export const localScheme: LauncherScheme = {
  scheme: "local",
  syntax: "local",
  parse: () => LOCAL,
};
