// `cmd:COMMAND`: any command line that passes its stdin/stdout through to a program it runs. relm runs
// `sh -c 'COMMAND "$@"' relm-kernel python3 -c BOOTSTRAP`: COMMAND is a prefix (`cmd:docker exec -i
// box`, `cmd:nice -n 10`, `cmd:sudo -u research`), the interpreter and the bootstrap are appended. A
// COMMAND that says `"$@"` itself places them there instead (`cmd:cd /data && exec "$@"`); one whose
// `"$@"` is inside single quotes gets them appended (`cmd:sh -c 'cd /data && exec "$@"' sh`).
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
    const script = placesArgs(this.line) ? this.line : `${this.line} "$@"`;
    return { file: "/bin/sh", args: ["-c", script, "relm-kernel", ...ctx.inner] };
  }
}

/**
 * Whether `line` says `"$@"` where the outer shell expands it. One inside quotes belongs to a shell the
 * line starts (`sh -c 'cd /data && exec "$@"' sh`): that shell gets its arguments only if they are
 * appended to it, so they are.
 */
function placesArgs(line: string): boolean {
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
    } else if (c === "\\") {
      i++; // an escaped character is never a quote (outside '...' and inside "...")
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
    } else if (line.startsWith('"$@"', i)) {
      return true;
    } else if (c === "'" || c === '"') {
      quote = c;
    }
  }
  return false;
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
