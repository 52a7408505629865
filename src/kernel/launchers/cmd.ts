// `cmd:COMMAND`: any command line that passes its stdin/stdout through to a program it runs. relm runs
// `sh -c 'COMMAND "$@"' relm-kernel python3 -c BOOTSTRAP`: COMMAND is a prefix (`cmd:docker exec -i
// box`, `cmd:nice -n 10`, `cmd:sudo -u research`), the interpreter and the bootstrap are appended. A
// COMMAND that says `"$@"` itself places them there instead (`cmd:sh -c 'cd /data && exec "$@"' sh`).
// Treated as remote: nothing is assumed shared, files cross over the protocol.
import type { LaunchCommand, LaunchContext, Launcher, LauncherScheme } from "./types.js";
import { launcherUsage } from "./uri.js";

const SYNTAX = "cmd:COMMAND (a command line that runs the program appended to it, e.g. cmd:nice -n 10)";

class CmdLauncher implements Launcher {
  readonly scheme = "cmd";
  readonly transport = "remote";
  readonly forkable = false;
  readonly python = "python3";

  constructor(
    readonly uri: string,
    readonly line: string,
  ) {}

  command(ctx: LaunchContext): LaunchCommand {
    const script = this.line.includes('"$@"') ? this.line : `${this.line} "$@"`;
    return { file: "/bin/sh", args: ["-c", script, "relm-kernel", ...ctx.inner] };
  }
}

export const cmdScheme: LauncherScheme = {
  scheme: "cmd",
  syntax: SYNTAX,
  parse(uri: string, where: string): Launcher {
    const line = uri.slice("cmd:".length).trim();
    if (!line) throw launcherUsage(where, uri, "no command after cmd:", `Use ${SYNTAX}.`);
    return new CmdLauncher(uri, line);
  },
};
