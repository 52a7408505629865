// `ssh://[user@]host[:port][/workdir][?python=PATH&control=auto]`: the kernel on another machine
// through the system `ssh` client. BatchMode (never a password prompt: keys or an agent), the user's
// ~/.ssh/config honoured (host aliases, ProxyJump, keys), or the file named by RELM_SSH_CONFIG (-F).
// `control=auto` shares one connection between the session's kernels (ControlMaster, kept 60 s).
// The remote command is `exec python3 -c BOOTSTRAP` (bootstrap.ts): nothing is installed there; the
// workdir is entered by the bootstrap (`/~/x` is x under the remote home; none: the home itself).

import type { RunnerExit } from "../link.js";
import { privateSocketDir } from "../listen.js";
import { RemoteLauncher } from "./remote.js";
import type { LaunchCommand, LaunchContext, LauncherScheme } from "./types.js";
import { launcherUsage, shellQuote, UriOptions } from "./uri.js";

const SYNTAX = "ssh://[user@]host[:port][/workdir][?python=PATH&control=auto]";
const USE = `Use ${SYNTAX}`;
const FORM = /^ssh:\/\/(?:([^@/?]*)@)?(\[[^\]]*\]|[^:/?]*)(?::([^/?]*))?(\/[^?]*)?(?:\?(.*))?$/;

interface SshTarget {
  user?: string;
  host: string;
  port?: number;
  workdir?: string;
  python: string;
  control: boolean;
}

class SshLauncher extends RemoteLauncher<SshTarget> {
  readonly scheme = "ssh";

  command(ctx: LaunchContext): LaunchCommand {
    const t = this.target;
    const args = ["-T", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"];
    const config = ctx.env.RELM_SSH_CONFIG?.trim();
    if (config) args.push("-F", config);
    if (t.port !== undefined) args.push("-p", String(t.port));
    if (t.user !== undefined) args.push("-l", t.user);
    if (t.control) {
      const dir = privateSocketDir(); // ssh does not make the socket's directory
      args.push("-o", "ControlMaster=auto", "-o", "ControlPersist=60", "-o", `ControlPath=${dir}/ssh-%C`);
    }
    args.push("--", t.host, `exec ${ctx.inner.map(shellQuote).join(" ")}`);
    return { file: "ssh", args };
  }

  /**
   * ssh's own 255: the connection went, or the remote process died of a signal (ssh reports no exit
   * status then). At LogLevel=ERROR ssh says nothing about either, so the note says what 255 means.
   */
  explainExit(stderr: string, exit: RunnerExit): string | undefined {
    if (exit.code !== 255) return undefined;
    const said = stderr
      .split("\n")
      .reverse()
      .find((line) => /^(ssh: |client_loop: |Connection |Timeout, server |packet_write_wait: )/.test(line));
    const why = `the ssh connection to ${this.target.host} was lost, or the kernel's process over there was killed`;
    return said ? `${why} (${said.trim()})` : why;
  }
}

function parseSsh(uri: string, where: string): SshLauncher {
  const m = FORM.exec(uri);
  if (!m) throw launcherUsage(where, uri, "not an ssh URI", `${USE}.`);
  const [, user, rawHost = "", rawPort, rawPath, query = ""] = m;
  if (user?.includes(":")) {
    throw launcherUsage(
      where,
      uri,
      "passwords cannot be given in the URI",
      `Use a key or an ssh agent; ${USE}.`,
    );
  }
  if (user === "") throw launcherUsage(where, uri, "empty user name before @", `${USE}.`);
  const host = rawHost.startsWith("[") ? rawHost.slice(1, -1) : rawHost;
  if (!host)
    throw launcherUsage(where, uri, "no host", `${USE}, e.g. ssh://gpu1 or ssh://me@gpu1:2222/~/proj.`);
  if (host.startsWith("-")) throw launcherUsage(where, uri, "a host cannot start with -", `${USE}.`);
  let port: number | undefined;
  if (rawPort !== undefined) {
    port = Number(rawPort);
    if (!/^\d+$/.test(rawPort) || port < 1 || port > 65535) {
      throw launcherUsage(where, uri, `the port must be a number 1-65535, not "${rawPort}"`, `${USE}.`);
    }
  }
  const opts = new UriOptions(query, ["python", "control"], where, uri, SYNTAX);
  const control = opts.get("control");
  if (control !== undefined && !["auto", "no"].includes(control)) {
    throw launcherUsage(where, uri, `control must be auto or no, not "${control}"`, `${USE}.`);
  }
  const python = opts.python("Name the remote interpreter, e.g. ?python=python3.11.");
  let workdir: string | undefined;
  if (rawPath && rawPath !== "/") {
    const decoded = decodeURIComponent(rawPath);
    // `/~/x` and `/~` mean the remote home; anything else is an absolute path over there.
    workdir = decoded === "/~" ? "~" : decoded.startsWith("/~/") ? decoded.slice(1) : decoded;
  }
  return new SshLauncher(uri, { user, host, port, workdir, python, control: control === "auto" });
}

export const sshScheme: LauncherScheme = { scheme: "ssh", syntax: SYNTAX, parse: parseSsh };
