// Can this machine sandbox? bubblewrap found (RELM_BWRAP, else `bwrap` on PATH) and a trial of the
// namespaces the sandbox uses (`relm doctor` shows it; the default permission mode follows it). The
// trial costs two processes (50-150 ms measured under load, docs/benchmarks.md), so its answer is cached per user (RELM_HOME/cache) under a key
// of what could change it: the binary, the boot, and the kernel settings that allow user namespaces.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { writePrivateFile } from "../../config/private-file.js";
import { isExecutable, which } from "../which.js";

export const BWRAP_INSTALL =
  "install bubblewrap: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch)";

/** What to do when bubblewrap is there but cannot make user namespaces (the usual causes and fixes). */
const USERNS_FIX =
  "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0, " +
  "or on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0), or run relm outside a container that forbids them";

/** bubblewrap's path: RELM_BWRAP when set (a build of its own, or a test's stand-in), else `bwrap` on PATH. */
export function findBwrap(env: NodeJS.ProcessEnv): string | undefined {
  const given = env.RELM_BWRAP?.trim();
  if (given) return isExecutable(given) ? given : undefined;
  return which("bwrap", env);
}

/** What `relm doctor` says about sandboxing here. */
export interface SandboxProbe {
  ok: boolean;
  /** e.g. "bubblewrap 0.8.0 (pid, net and mount namespaces work)". */
  detail: string;
  /** When not ok: what to do about it, in a few words ("install bubblewrap: …"). */
  fix?: string;
}

/** Runs bwrap (its version, then one sandbox around /bin/true) to see that the namespaces the sandbox uses can be made here. */
export function probeSandbox(env: NodeJS.ProcessEnv): SandboxProbe {
  if (process.platform === "darwin") {
    return existsSync("/usr/bin/sandbox-exec")
      ? { ok: true, detail: "sandbox-exec (Seatbelt; relm's profile is untested on macOS)" }
      : { ok: false, detail: "no /usr/bin/sandbox-exec", fix: "macOS without sandbox-exec cannot sandbox" };
  }
  if (process.platform !== "linux")
    return { ok: false, detail: `not available on ${process.platform}`, fix: "Linux and macOS only" };
  const bwrap = findBwrap(env);
  if (!bwrap) {
    const named = env.RELM_BWRAP?.trim();
    return {
      ok: false,
      detail: named ? `RELM_BWRAP=${named} is not an executable file` : "bubblewrap is not installed",
      fix: named ? "point RELM_BWRAP at bubblewrap, or unset it" : BWRAP_INSTALL,
    };
  }
  const version =
    spawnSync(bwrap, ["--version"], { encoding: "utf8", timeout: 5000 }).stdout?.trim() || "bwrap";
  const trial = spawnSync(
    bwrap,
    ["--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--proc", "/proc", "--", "/bin/true"],
    { encoding: "utf8", timeout: 5000 },
  );
  if (trial.status !== 0) {
    const why = (trial.stderr || trial.error?.message || `exit ${trial.status}`).trim().split("\n")[0];
    const userns =
      readOr("/proc/sys/user/max_user_namespaces") === "0"
        ? "user namespaces are disabled (sysctl user.max_user_namespaces=0)"
        : undefined;
    return {
      ok: false,
      detail: `${version} cannot make namespaces here (${why})${userns ? `; ${userns}` : ""}`,
      fix: USERNS_FIX,
    };
  }
  const root = process.getuid?.() === 0;
  return {
    ok: true,
    detail: `${version}, pid/net/mount namespaces work${root ? " (as root)" : " (user namespaces)"}`,
  };
}

const CACHE_FILE = "sandbox-probe.json";

/** The kernel settings that decide whether unprivileged user namespaces can be made. */
const USERNS_SETTINGS = [
  "/proc/sys/kernel/random/boot_id",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];

/** A /proc setting's value, "-" where it cannot be read. */
function readOr(file: string): string {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return "-";
  }
}

/** What the cached answer depends on: a change of any of it (bwrap installed, a sysctl, a reboot) asks again. */
function probeKey(env: NodeJS.ProcessEnv): string {
  const bwrap = process.platform === "linux" ? findBwrap(env) : undefined;
  let binary = "none";
  if (bwrap) {
    try {
      const st = statSync(bwrap);
      binary = `${bwrap}:${st.size}:${st.mtimeMs}`;
    } catch {
      binary = bwrap;
    }
  }
  const settings = process.platform === "linux" ? USERNS_SETTINGS.map(readOr).join(",") : "";
  return [process.platform, process.getuid?.() ?? "", binary, settings].join("|");
}

/**
 * probeSandbox's answer, from `cacheDir` when nothing it depends on changed (a file read: the start of
 * every session asks), else tried now and kept. `relm doctor` tries afresh and renews the file.
 */
export function cachedProbe(env: NodeJS.ProcessEnv, cacheDir: string, fresh = false): SandboxProbe {
  const file = path.join(cacheDir, CACHE_FILE);
  const key = probeKey(env);
  if (!fresh) {
    try {
      const kept = JSON.parse(readFileSync(file, "utf8")) as { key?: unknown; probe?: SandboxProbe };
      if (kept.key === key && kept.probe && typeof kept.probe.ok === "boolean") return kept.probe;
    } catch {
      // none yet, or unreadable: try
    }
  }
  const probe = probeSandbox(env);
  try {
    writePrivateFile(file, `${JSON.stringify({ key, probe })}\n`);
  } catch {
    // A read-only home: the trial is made again next time.
  }
  return probe;
}
