// The sandbox on macOS: `sandbox-exec -p PROFILE` (Seatbelt) with a profile generated here.
// UNTESTED: written without a Mac to run it on (docs/sandbox.md says so). sandbox-exec is deprecated by
// Apple but still shipped and used by other tools (Codex CLI, Bazel). Seatbelt has no pid or network
// namespaces: other processes are hidden by denying process-info on them, and an allow-list is
// enforced by letting the kernel connect to the host's proxy port on 127.0.0.1 and nothing else.
import path from "node:path";
import { realPath } from "../../config/paths.js";
import { RELM_PYTHON_DIR } from "../paths.js";
import { insideEnv } from "./policy.js";
import type { NetProxy } from "./proxy.js";
import type { KernelSandbox, SandboxPaths, SandboxSettings, SpawnCommand } from "./types.js";

/** A Scheme string literal. */
function q(p: string): string {
  return `"${p.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** The Seatbelt profile for these settings (later rules win over earlier ones that match). */
function seatbeltProfile(
  settings: SandboxSettings,
  paths: SandboxPaths,
  options: { python: string; sockets: string[]; proxyPort?: number },
): string {
  const project = realPath(paths.project);
  // Permission mode plan: the project is not among them (the session's own folders are).
  const own = settings.readOnlyProject ? [] : [project];
  const writable = [...own, ...paths.writable.map(realPath), "/private/tmp", "/private/var/folders"];
  const readable = [
    RELM_PYTHON_DIR,
    path.dirname(path.dirname(realPath(options.python))),
    ...paths.readable,
  ].map(realPath);
  const lines = [
    "(version 1)",
    "(allow default)",
    // Files: read-only everywhere but the project, the session's folders and the temp directories.
    "(deny file-write*)",
    `(allow file-write* ${writable.map((p) => `(subpath ${q(p)})`).join(" ")} (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/"))`,
    // RELM_HOME (other sessions' journals and sockets) and the fork sockets' directory are unreadable.
    ...paths.hidden.map((h) => `(deny file-read* file-write* (subpath ${q(realPath(h))}))`),
  ];
  if (settings.mode === "strict" && paths.home)
    lines.push(`(deny file-read* file-write* (subpath ${q(realPath(paths.home))}))`);
  // What must stay reachable inside the hidden directories.
  lines.push(`(allow file-read* ${readable.map((p) => `(subpath ${q(p)})`).join(" ")})`);
  lines.push(`(allow file-read* file-write* ${writable.map((p) => `(subpath ${q(p)})`).join(" ")})`);
  for (const s of options.sockets) lines.push(`(allow file-read* file-write* (literal ${q(realPath(s))}))`);
  // What the host reads and obeys (.git, .relm, .mcp.json): no writes, whether it exists yet or not
  // (Seatbelt matches paths, so unlike a mount it needs nothing to exist).
  const guarded = [...paths.readOnly, ...paths.unprotected].map(realPath);
  if (guarded.length > 0)
    lines.push(`(deny file-write* ${guarded.map((p) => `(subpath ${q(p)})`).join(" ")})`);
  // Other processes: no environment, arguments or memory of theirs to read; signals only to our own.
  lines.push("(deny process-info* (target others))", "(deny signal (target others))");
  if (settings.net.kind !== "all") {
    lines.push("(deny network*)");
    for (const s of options.sockets)
      lines.push(`(allow network-outbound (remote unix-socket (path-literal ${q(realPath(s))})))`);
    if (options.proxyPort)
      lines.push(`(allow network-outbound (remote ip "localhost:${options.proxyPort}"))`);
  }
  return `${lines.join("\n")}\n`;
}

export class MacSandbox implements KernelSandbox {
  readonly engine = "sandbox-exec";
  /** None: the profile denies writes to the missing names too. */
  readonly unprotected: readonly string[] = [];

  constructor(
    readonly settings: SandboxSettings,
    private readonly paths: SandboxPaths,
    private readonly python: string,
    private readonly proxy: NetProxy | undefined,
  ) {}

  wrap(command: SpawnCommand, sockets: string[] = []): SpawnCommand {
    const profile = seatbeltProfile(this.settings, this.paths, {
      python: this.python,
      sockets,
      proxyPort: this.proxy?.port,
    });
    return {
      file: "/usr/bin/sandbox-exec",
      args: ["-p", profile, command.file, ...command.args],
      env: this.env(command.env),
      cwd: command.cwd,
    };
  }

  env(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    const url = this.proxy && `http://127.0.0.1:${this.proxy.port}`;
    return insideEnv(env, this.settings.mode, url);
  }

  /** No pid namespace: the kernel's pids are the host's. */
  hostPid(_outer: number, inner: number): number {
    return inner;
  }

  async close(): Promise<void> {
    await this.proxy?.close();
  }
}
