// The kernel sandbox (issue 12, item 2): openSandbox() gives the KernelSandbox a session tree's kernels
// and warm template are wrapped in; probeSandbox() tells `relm doctor` what this machine offers.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { makeDirs } from "../../config/dirs.js";
import { ConfigError } from "../../config/errors.js";
import { realPath } from "../../config/paths.js";
import { skillFolders } from "../env.js";
import { trackFile, untrackFile } from "../host-exit.js";
import { privateSocketDir } from "../listen.js";
import { LinuxSandbox } from "./linux.js";
import { MacSandbox } from "./macos.js";
import { BWRAP_INSTALL, cachedProbe, findBwrap } from "./probe.js";
import { protectedPaths } from "./protect.js";
import { NetProxy } from "./proxy.js";
import type { KernelSandbox, SandboxPaths, SandboxSettings } from "./types.js";

export { netPolicyOf, settingsForMode } from "./policy.js";
export { cachedProbe, probeSandbox, type SandboxProbe } from "./probe.js";

/** The sandbox cannot work on this machine; the message says what to install. */
class SandboxUnavailableError extends ConfigError {}

interface SandboxRequest {
  settings: SandboxSettings;
  /** The project directory (writable; the kernels' working directory). */
  project: string;
  /** The root session's directory: its outputs/, snapshot/ and children/ are writable inside. */
  sessionDir?: string;
  /** RELM_HOME: hidden (other sessions, their sockets, config.json), but for the session's folders. */
  relmHome?: string;
  /** The kernels' environment: HOME (strict mode), PATH (to find bwrap), PYTHONPATH and RELM_SKILL_PATH (kept readable). */
  env: NodeJS.ProcessEnv;
  /** The kernels' interpreter (its prefix stays readable when it is under a hidden directory). */
  python: string;
  /**
   * Names in the project the host reads and obeys (".git", ".relm", ".mcp.json"): read-only inside
   * when they exist as the sandbox opens (protect.ts).
   */
  protect?: readonly string[];
}

/** The proxy's socket, in the private directory of the fork sockets ($TMPDIR/relm-UID, 0700, ours). */
function socketPath(): string {
  return path.join(privateSocketDir(), `n${process.pid}-${randomBytes(4).toString("hex")}.sock`);
}

/**
 * Why a sandbox cannot be opened here (what to install), or undefined: cheap, no process started.
 * `asked` is how the person asked for it (`--sandbox`, `--mode plan`, `config.json mode "workspace"`).
 */
export function sandboxUnavailable(env: NodeJS.ProcessEnv, asked = "--sandbox"): string | undefined {
  if (process.platform === "linux") {
    if (findBwrap(env)) return undefined;
    const named = env.RELM_BWRAP?.trim();
    return named
      ? `${asked} needs bubblewrap, and RELM_BWRAP=${named} is not an executable file`
      : `${asked} needs bubblewrap (bwrap), which is not installed; ${BWRAP_INSTALL}`;
  }
  if (process.platform === "darwin") {
    return existsSync("/usr/bin/sandbox-exec")
      ? undefined
      : `${asked} needs /usr/bin/sandbox-exec, which this macOS does not have`;
  }
  return `${asked} is not available on ${process.platform} (Linux and macOS only); use --mode full`;
}

/**
 * Why a sandboxed mode `asked` for (`--mode plan`, `/mode workspace`) cannot run here, or undefined:
 * bubblewrap missing (sandboxUnavailable), or installed but unable to make namespaces (the cached trial),
 * said when the mode is asked for rather than as a kernel that cannot start. The session's start
 * (agent/mode-choice.ts) and the host's `/mode` switch (host/commands.ts) both refuse with it.
 */
export function sandboxRefusal(env: NodeJS.ProcessEnv, cacheDir: string, asked: string): string | undefined {
  const missing = sandboxUnavailable(env, asked);
  if (missing) return missing;
  const probe = cachedProbe(env, cacheDir);
  if (probe.ok) return undefined;
  return `${asked} needs the sandbox, which does not work here: ${probe.detail}; ${probe.fix ?? "see relm doctor"}`;
}

/** Checks the machine can sandbox and starts what the sandbox needs on the host (the allow-list proxy). */
export async function openSandbox(request: SandboxRequest): Promise<KernelSandbox> {
  const { settings } = request;
  const linux = process.platform === "linux";
  const missing = sandboxUnavailable(request.env);
  if (missing) throw new SandboxUnavailableError(missing);
  const session = request.sessionDir;
  const writable = session ? ["outputs", "snapshot", "children"].map((d) => path.join(session, d)) : [];
  // What a person sends a running session (a large paste, an MCP task's variables) is staged in its
  // inputs/ and read by the kernel from there, also after a restart: shown read-only, as RELM_HOME is hidden.
  const inputs = session ? path.join(session, "inputs") : undefined;
  if (inputs) makeDirs(inputs, 0o700);
  const readable = [
    ...(request.env.PYTHONPATH ?? "").split(path.delimiter),
    ...skillFolders(request.env),
    ...(settings.readable ?? []),
    ...(inputs ? [inputs] : []),
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
  const project = realPath(request.project);
  // Plan mode: the whole project is read-only, so nothing in it needs guarding (or can appear).
  const guarded = protectedPaths(project, settings.readOnlyProject ? [] : (request.protect ?? []));
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
  if (linux) return new LinuxSandbox(settings, paths, findBwrap(request.env)!, request.python, proxy);
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
  const bwrap = findBwrap(env);
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
