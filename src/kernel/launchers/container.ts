// `container://IMAGE[?engine=podman|docker&network=MODE&python=PATH]`: the kernel in a fresh container
// (`podman run` or `docker run`, `--rm -i`), the project directory mounted at the same path and made
// the working directory, so paths the model sees are the host's. The container ends with the kernel:
// the runner exits when its stdin closes, which it does when relm (or the engine's client) goes.
//
// `container://` or `container:///` (no image): podman's `--rootfs /:O`, the host's own root as the
// container's, writes to an overlay that is thrown away (the mounted project excepted). Needs no image
// and no registry; isolates processes, network namespace and writes outside the project, not reads
// (for that, use the sandbox). Docker has no --rootfs: an image is required there.
//
// Transport "remote": the image need not have relm (the bootstrap sends relm's Python package over
// stdin) and shares no disk with the host beyond the project, so files cross over the protocol.

import { readFileSync } from "node:fs";
import type { RunnerExit } from "../link.js";
import { which } from "../which.js";
import { RemoteLauncher } from "./remote.js";
import type { LaunchCommand, LaunchContext, LauncherScheme } from "./types.js";
import { launcherUsage, UriOptions } from "./uri.js";

const SYNTAX = "container://[IMAGE][?engine=podman|docker&network=MODE&python=PATH]";
const USE = `Use ${SYNTAX}`;
const ENGINES = ["podman", "docker"] as const;
type Engine = (typeof ENGINES)[number];

interface ContainerTarget {
  /** undefined: the host's root filesystem (podman --rootfs /:O). */
  image?: string;
  /** undefined: podman when on PATH, else docker. */
  engine?: Engine;
  /** The engine's --network (none, host, ...); undefined: the engine's default. */
  network?: string;
  python: string;
}

class ContainerLauncher extends RemoteLauncher<ContainerTarget> {
  readonly scheme = "container";

  command(ctx: LaunchContext): LaunchCommand {
    const t = this.target;
    const engine = t.engine ?? (which("podman", ctx.env) ? "podman" : "docker");
    const args = ["run", "--rm", "-i", "--label", "relm.kernel=1"];
    // The protocol is the container's stdout: the engine's own log would be a second copy of it.
    args.push("--log-driver=none");
    if (t.network) args.push(`--network=${t.network}`);
    args.push("--mount", bindMount(ctx.cwd), "-w", ctx.cwd);
    if (engine === "podman") args.push(...podmanUlimits());
    if (engine === "docker" && process.getuid && process.getuid() !== 0) {
      // Files the kernel writes in the mounted project belong to the user, not to root.
      args.push("--user", `${process.getuid()}:${process.getgid?.() ?? process.getuid()}`);
    }
    if (t.image) args.push(t.image);
    else args.push("--rootfs", "/:O");
    args.push(...ctx.inner);
    return { file: engine, args };
  }

  /** The engine exits 128+N when the container's first process died of signal N: say who sends those. */
  explainExit(_stderr: string, exit: RunnerExit): string | undefined {
    if (exit.code === 137)
      return "the container's main process was killed by SIGKILL (podman kill or docker kill, the out-of-memory killer, or a kill inside it)";
    if (exit.code === 143) return "the container was stopped (SIGTERM: podman stop or docker stop)";
    return undefined;
  }
}

/**
 * `--mount` for the project at its own path. Not `-v SRC:DST`, which splits on colons (a folder named
 * "run 12:30" was refused as an "incorrect volume format"): --mount is comma-separated fields that both
 * engines read as CSV, so each field is quoted (a quote doubled) and any path goes through.
 */
function bindMount(dir: string): string {
  const field = (text: string) => `"${text.replaceAll('"', '""')}"`;
  return ["type=bind", field(`source=${dir}`), field(`target=${dir}`)].join(",");
}

/**
 * `--ulimit` flags for podman: the limits this process runs with. Podman run by root otherwise asks
 * the runtime for its own defaults (nofile 1048576, nproc 4194304), and where the host may not raise
 * limits (no CAP_SYS_RESOURCE, e.g. inside another container) runc then fails with "error setting
 * rlimit type 6/7: operation not permitted". The current soft limits are always allowed; nproc is also
 * capped at the kernel's pid_max, since no more processes can exist and a higher value was refused
 * on the machine this was tested on (nproc 96362 failed, 32768 = pid_max worked).
 */
export function podmanUlimits(): string[] {
  const limits = softLimits();
  const out: string[] = [];
  if (limits.nofile !== undefined) out.push("--ulimit", `nofile=${limits.nofile}:${limits.nofile}`);
  if (limits.nproc !== undefined) {
    const nproc = Math.min(limits.nproc, pidMax() ?? limits.nproc);
    out.push("--ulimit", `nproc=${nproc}:${nproc}`);
  }
  return out;
}

/** This process's soft limits of open files and processes (Linux /proc/self/limits); {} elsewhere. */
function softLimits(): { nofile?: number; nproc?: number } {
  let text: string;
  try {
    text = readFileSync("/proc/self/limits", "utf8");
  } catch {
    return {};
  }
  const soft = (name: string): number | undefined => {
    const m = new RegExp(`^${name}\\s+(\\d+|unlimited)`, "m").exec(text);
    return m && m[1] !== "unlimited" ? Number(m[1]) : undefined;
  };
  const out: { nofile?: number; nproc?: number } = {};
  const nofile = soft("Max open files");
  const nproc = soft("Max processes");
  if (nofile !== undefined) out.nofile = nofile;
  if (nproc !== undefined) out.nproc = nproc;
  return out;
}

function pidMax(): number | undefined {
  try {
    const n = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8").trim());
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

function parseContainer(uri: string, where: string): ContainerLauncher {
  const m = /^container:(?:\/\/)?([^?]*)(?:\?(.*))?$/.exec(uri);
  if (!m) throw launcherUsage(where, uri, "not a container URI", `${USE}.`);
  const [, rawImage = "", query = ""] = m;
  const image = rawImage === "/" ? "" : rawImage;
  if (image && !/^[A-Za-z0-9][A-Za-z0-9._/:@-]*$/.test(image)) {
    throw launcherUsage(
      where,
      uri,
      `"${image}" is not an image name`,
      `${USE}, e.g. container://python:3.12-slim.`,
    );
  }
  const opts = new UriOptions(query, ["engine", "network", "python"], where, uri, SYNTAX);
  const engine = opts.get("engine");
  if (engine !== undefined && !ENGINES.includes(engine as Engine)) {
    throw launcherUsage(where, uri, `engine must be podman or docker, not "${engine}"`, `${USE}.`);
  }
  if (!image && engine === "docker") {
    throw launcherUsage(
      where,
      uri,
      "docker needs an image (only podman can use the host's root, --rootfs)",
      "Name an image, e.g. container://python:3.12-slim?engine=docker.",
    );
  }
  const network = opts.matching("network", /^[A-Za-z0-9_.:-]+$/, "none or network=host");
  const python = opts.python("Name the interpreter in the image, e.g. ?python=python3.12.");
  const target: ContainerTarget = { python };
  if (image) target.image = image;
  // No image means --rootfs, which only podman has.
  if (engine !== undefined || !image) target.engine = (engine as Engine | undefined) ?? "podman";
  if (network !== undefined) target.network = network;
  return new ContainerLauncher(uri, target);
}

export const containerScheme: LauncherScheme = { scheme: "container", syntax: SYNTAX, parse: parseContainer };
