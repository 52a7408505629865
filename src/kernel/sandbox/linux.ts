// The sandbox on Linux: bubblewrap. See bwrap.ts for the command line, proxy.ts for the allow-list.
import { readdirSync, realpathSync } from "node:fs";
import path from "node:path";
import { makeDirs } from "../../config/dirs.js";
import { realPath, within } from "../../config/paths.js";
import { RELM_PYTHON_DIR } from "../paths.js";
import { type BwrapPlan, bwrapArgs, NET_SOCKET_INSIDE, PROXY_PORT } from "./bwrap.js";
import { hostPidBelow } from "./pids.js";
import { insideEnv } from "./policy.js";
import type { NetProxy } from "./proxy.js";
import type { KernelSandbox, SandboxPaths, SandboxSettings, SpawnCommand } from "./types.js";

const PROXY_URL = `http://127.0.0.1:${PROXY_PORT}`;
/** Directories every sandbox gets its own empty copy of (bwrap.ts). */
const PRIVATE_DIRS = ["/tmp", "/run", "/dev/shm"];

function real(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/** GPUs and the like: device nodes a kernel on this machine would be expected to use. */
function gpuDevices(): string[] {
  let names: string[];
  try {
    names = readdirSync("/dev");
  } catch {
    return [];
  }
  return names.filter((n) => /^nvidia/.test(n) || n === "dri" || n === "kfd").map((n) => `/dev/${n}`);
}

export class LinuxSandbox implements KernelSandbox {
  readonly engine = "bubblewrap";
  readonly unprotected: readonly string[];
  private readonly plan: Omit<BwrapPlan, "sockets">;

  constructor(
    readonly settings: SandboxSettings,
    paths: SandboxPaths,
    /** bubblewrap's path, found on the kernels' PATH when the sandbox was opened. */
    private readonly bwrap: string,
    /** Where the interpreter lives (its prefix is shown read-only in strict mode). */
    python: string,
    private readonly proxy: NetProxy | undefined,
  ) {
    for (const dir of paths.writable) makeDirs(dir, 0o700);
    const project = realPath(paths.project);
    const home = paths.home ? real(paths.home) : undefined;
    const hideHome = settings.mode === "strict" && home && home !== "/" ? [home] : [];
    // The project itself is never hidden (relm started in $HOME or in RELM_HOME); a parent of it is, and
    // the project is bound back on top (bwrap.ts orders the mounts).
    const hidden = [...new Set([...paths.hidden.map(real), ...hideHome])].filter(
      (p): p is string => p !== undefined && p !== "/" && p !== project,
    );
    // What must stay readable inside a hidden directory (or the sandbox's own /tmp): relm's package, the
    // interpreter's prefix (a venv, or pyenv under $HOME), PYTHONPATH and RELM_SKILL_PATH entries (skills under
    // RELM_HOME). Each at the path the kernel is given and at its real path (they differ through symlinks).
    const wanted = [RELM_PYTHON_DIR, path.dirname(path.dirname(python)), ...paths.readable];
    wanted.push(path.dirname(path.dirname(real(python) ?? python)));
    const covered = [...hidden, ...PRIVATE_DIRS];
    const binds = new Map<string, string>();
    for (const p of wanted) {
      const src = real(p);
      if (!src) continue;
      for (const dest of [path.resolve(p), src])
        if (covered.some((h) => within(dest, h)) && !within(dest, project)) binds.set(dest, src);
    }
    const readable = [...binds].map(([dest, src]) => ({ src, dest }));
    // A hidden folder (RELM_HOME inside the project) stays hidden: nothing of it is bound back here.
    const visible = (p: string) => !hidden.some((h) => within(p, h));
    this.unprotected = paths.unprotected;
    const resolv = real("/etc/resolv.conf");
    this.plan = {
      net:
        settings.net.kind === "list"
          ? {
              proxySocket: proxy!.path,
              forwarder: path.join(RELM_PYTHON_DIR, "relm", "netfwd.py"),
              python: real(python) ?? python,
            }
          : settings.net.kind,
      project,
      readOnlyProject: settings.readOnlyProject === true,
      writable: paths.writable.map((p) => real(p) ?? p),
      hidden,
      readable,
      runFiles: resolv?.startsWith("/run/") ? [resolv] : [],
      devices: gpuDevices(),
      root: process.getuid?.() === 0,
      readOnly: paths.readOnly.filter(visible),
      pinned: paths.pinned.filter(visible),
    };
  }

  wrap(command: SpawnCommand, sockets: string[] = [], relmProcess = false): SpawnCommand {
    const env = this.env(command.env);
    const argv = [command.file, ...command.args];
    // Other hosts' fork sockets sit beside this one: the directory is hidden, this socket bound back.
    const socketDirs = sockets.map((s) => path.dirname(s)).filter((d) => d !== "/");
    const hidden = [...new Set([...this.plan.hidden, ...socketDirs])];
    const args = bwrapArgs({ ...this.plan, hidden, sockets }, argv, command.cwd, relmProcess);
    return { file: this.bwrap, args, env, cwd: command.cwd };
  }

  env(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    const listed = this.settings.net.kind === "list";
    const tmp = { ...env, TMPDIR: "/tmp", TMP: "/tmp", TEMP: "/tmp" };
    const out = insideEnv(tmp, this.settings.mode, listed ? PROXY_URL : undefined);
    // $HOME is read-only (or empty): tools that keep state there would warn at every start.
    out.IPYTHONDIR ??= "/tmp/.ipython";
    out.MPLCONFIGDIR ??= "/tmp/.matplotlib";
    // What a kernel or template forwards, itself (relm.netfwd.start_beside, bwrap.ts).
    if (listed) out.RELM_NETFWD = `${NET_SOCKET_INSIDE} ${PROXY_PORT}`;
    return out;
  }

  hostPid(outer: number, inner: number): number | undefined {
    return hostPidBelow(outer, inner);
  }

  async close(): Promise<void> {
    await this.proxy?.close();
  }
}
