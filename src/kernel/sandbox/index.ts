// The kernel sandbox (issue 12, item 2): openSandbox() gives the KernelSandbox a session tree's kernels
// and warm template are wrapped in; probeSandbox() tells `relm doctor` what this machine offers.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeDirs } from "../../config/dirs.js";
import { ConfigError } from "../../config/errors.js";
import { trackFile, untrackFile } from "../host-exit.js";
import { LinuxSandbox } from "./linux.js";
import { MacSandbox } from "./macos.js";
import { protectedPaths } from "./protect.js";
import { NetProxy } from "./proxy.js";
import type { KernelSandbox, SandboxPaths, SandboxSettings } from "./types.js";

export { netPolicyOf, sandboxSettingsOf } from "./policy.js";

/** The sandbox cannot work on this machine; the message says what to install. */
class SandboxUnavailableError extends ConfigError {}

const BWRAP_INSTALL =
  "install bubblewrap: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch)";

interface SandboxRequest {
  settings: SandboxSettings;
  /** The project directory (writable; the kernels' working directory). */
  project: string;
  /** The root session's directory: its outputs/, snapshot/ and children/ are writable inside. */
  sessionDir?: string;
  /** RELM_HOME: hidden (other sessions, their sockets, config.json), but for the session's folders. */
  relmHome?: string;
  /** The kernels' environment: HOME (strict mode), PATH (to find bwrap), PYTHONPATH (kept readable). */
  env: NodeJS.ProcessEnv;
  /** The kernels' interpreter (its prefix stays readable when it is under a hidden directory). */
  python: string;
  /**
   * Names in the project the host reads and obeys (".git", ".relm", ".mcp.json"): read-only inside
   * when they exist as the sandbox opens (protect.ts).
   */
  protect?: readonly string[];
}

function which(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

function realOrSame(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** A private directory for the proxy's socket (as the fork sockets': $TMPDIR/relm-UID, 0700). */
function socketPath(): string {
  const dir = path.join(os.tmpdir(), `relm-${process.getuid?.() ?? 0}`);
  makeDirs(dir, 0o700);
  return path.join(dir, `n${process.pid}-${randomBytes(4).toString("hex")}.sock`);
}

/** Why a sandbox cannot be opened here (what to install), or undefined: cheap, no process started. */
export function sandboxUnavailable(env: NodeJS.ProcessEnv): string | undefined {
  if (process.platform === "linux") {
    return which("bwrap", env)
      ? undefined
      : `--sandbox needs bubblewrap (bwrap), which is not installed; ${BWRAP_INSTALL}`;
  }
  if (process.platform === "darwin") {
    return existsSync("/usr/bin/sandbox-exec")
      ? undefined
      : "--sandbox needs /usr/bin/sandbox-exec, which this macOS does not have";
  }
  return `--sandbox is not available on ${process.platform} (Linux and macOS only)`;
}

/** Checks the machine can sandbox and starts what the sandbox needs on the host (the allow-list proxy). */
export async function openSandbox(request: SandboxRequest): Promise<KernelSandbox> {
  const { settings } = request;
  const linux = process.platform === "linux";
  const missing = sandboxUnavailable(request.env);
  if (missing) throw new SandboxUnavailableError(missing);
  const session = request.sessionDir;
  const writable = session ? ["outputs", "snapshot", "children"].map((d) => path.join(session, d)) : [];
  const readable = [
    ...(request.env.PYTHONPATH ?? "").split(path.delimiter),
    ...(settings.readable ?? []),
  ].filter((p) => p && existsSync(p));
  const hidden = [request.relmHome].filter((d): d is string => !!d && existsSync(d));
  let proxy: NetProxy | undefined;
  if (settings.net.kind === "list") {
    const file = linux ? socketPath() : "";
    proxy = await NetProxy.listen(file, settings.net.rules);
    if (file) {
      trackFile(file);
      hidden.push(path.dirname(file));
      const close = proxy.close.bind(proxy);
      proxy.close = async () => {
        untrackFile(file);
        await close();
      };
    }
  }
  const project = realOrSame(request.project);
  const guarded = protectedPaths(project, request.protect ?? []);
  const paths: SandboxPaths = {
    project: request.project,
    writable,
    hidden,
    readable,
    home: request.env.HOME,
    readOnly: guarded.readOnly,
    pinned: guarded.pinned,
    unprotected: guarded.unprotected.map((name) => path.join(project, name)),
  };
  if (linux) return new LinuxSandbox(settings, paths, which("bwrap", request.env)!, request.python, proxy);
  return new MacSandbox(settings, paths, request.python, proxy);
}

/**
 * A confinement for probing an interpreter that untrusted code could have written (python.ts ProbeTrust):
 * the whole filesystem read-only, RELM_HOME and /run hidden, no network, no capabilities. The probe
 * prints one line the host parses as data, so nothing it does reaches the host. Undefined where
 * bubblewrap is not available (such a candidate is then not probed at all).
 */
export function probeConfinement(
  env: NodeJS.ProcessEnv,
  relmHome: string | undefined,
): ((file: string, args: string[]) => { file: string; args: string[] }) | undefined {
  if (process.platform !== "linux") return undefined;
  const bwrap = which("bwrap", env);
  if (!bwrap) return undefined;
  const hide = [relmHome, "/run", "/tmp"].filter((d): d is string => !!d && existsSync(d));
  const root = process.getuid?.() === 0 ? ["--cap-drop", "ALL"] : [];
  return (file, args) => ({
    file: bwrap,
    args: [
      "--die-with-parent",
      "--unshare-all",
      ...root,
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      ...hide.flatMap((dir) => ["--tmpfs", dir]),
      "--",
      file,
      ...args,
    ],
  });
}

/** What `relm doctor` says about sandboxing here. */
interface SandboxProbe {
  ok: boolean;
  /** e.g. "bubblewrap 0.8.0 (pid, net and mount namespaces work)". */
  detail: string;
}

/** Runs bwrap once (about 10 ms) to see that the namespaces the sandbox uses can be made here. */
export function probeSandbox(env: NodeJS.ProcessEnv): SandboxProbe {
  if (process.platform === "darwin") {
    return existsSync("/usr/bin/sandbox-exec")
      ? { ok: true, detail: "sandbox-exec (Seatbelt; relm's profile is untested on macOS)" }
      : { ok: false, detail: "no /usr/bin/sandbox-exec" };
  }
  if (process.platform !== "linux") return { ok: false, detail: `not available on ${process.platform}` };
  const bwrap = which("bwrap", env);
  if (!bwrap) return { ok: false, detail: `bubblewrap is not installed; ${BWRAP_INSTALL}` };
  const version =
    spawnSync(bwrap, ["--version"], { encoding: "utf8", timeout: 5000 }).stdout?.trim() || "bwrap";
  const trial = spawnSync(
    bwrap,
    ["--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--proc", "/proc", "--", "/bin/true"],
    { encoding: "utf8", timeout: 5000 },
  );
  if (trial.status !== 0) {
    const why = (trial.stderr || trial.error?.message || `exit ${trial.status}`).trim().split("\n")[0];
    const userns = readUserns();
    return {
      ok: false,
      detail: `${version} cannot make namespaces here (${why})${userns ? `; ${userns}` : ""}`,
    };
  }
  const root = process.getuid?.() === 0;
  return {
    ok: true,
    detail: `${version}, pid/net/mount namespaces work${root ? " (as root)" : " (user namespaces)"}`,
  };
}

function readUserns(): string | undefined {
  try {
    const max = readFileSync("/proc/sys/user/max_user_namespaces", "utf8").trim();
    if (max === "0") return "user namespaces are disabled (sysctl user.max_user_namespaces=0)";
  } catch {
    // unknown
  }
  return undefined;
}
