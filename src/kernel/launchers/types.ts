// Kernel launchers: where and how a kernel's runner process is started (issue 12).
//
// A kernel target is named by a URI (`--kernel URI`, config `kernel`, an agent spec's `kernel:`,
// `rlm.spawn(..., kernel=...)`): `local`, `sandbox`, `cmd:COMMAND`, `ssh://...`, `container://...`,
// `slurm://...`, `k8s://...`. A launcher turns one into a command line whose stdin/stdout carry the
// runner's JSON-lines protocol (src/kernel/protocol.ts). Everything else — the protocol, cells,
// timeouts, crash detection and restarts, host calls — is the same for every launcher.
//
// Two transports:
// - "local": the runner runs on this machine and shares its disk, as `PYTHON -m relm.runner ...`
//   (relm's python/ dir on PYTHONPATH); the launcher may wrap that command (e.g. bubblewrap). Files
//   (full outputs, snapshots, --var files, handed-over pickles) are passed by path.
// - "remote": nothing is assumed on the other side but a Python 3.10+. The launcher wraps
//   `python3 -c BOOTSTRAP` (src/kernel/launchers/bootstrap.ts); relm then sends its own Python package
//   over stdin, and every file that must cross is streamed over the protocol (src/kernel/remote-files.ts).
//   Interrupts go over the protocol too (signals cannot cross ssh), and the remote runner dies when its
//   stdin closes.
//
// HOW TO ADD A LAUNCHER (e.g. `container://IMAGE`):
// 1. Write `src/kernel/launchers/container.ts` exporting a `LauncherScheme`: its `scheme`
//    ("container"), a one-line `syntax` for error messages, and `parse(uri, where)` that returns a
//    `Launcher` or throws `launcherUsage(where, uri, "what is wrong", "how to fix it")` (uri.ts).
// 2. Its Launcher says `transport: "remote"` (usually) and implements `command(ctx)`: the argv that,
//    when spawned here, ends up running `ctx.inner` (an argv: the interpreter and its arguments) over
//    there with stdin/stdout passed through unchanged, e.g.
//    `["podman", "run", "-i", "--rm", "-v", `${ctx.cwd}:/work`, "-w", "/work", image, ...ctx.inner]`.
//    Whatever it prints on stderr is kept and shown when the kernel fails to start.
// 3. Add the scheme to SCHEMES in `src/kernel/launchers/index.ts` (one line). Tests of its argv go
//    beside test/kernel/launchers.test.ts; an end-to-end one starts the real software.
// 4. Add one entry to bench/launchers.mjs (LAUNCHERS) so its start and first cell are measured.
// The spawned process is detached into its own process group; killing the kernel kills that group
// (and first asks the runner to exit over the protocol). A non-zero exit is reported as a crash.

import type { RunnerExit } from "../link.js";

/** What a launcher gets to build its command line. */
export interface LaunchContext {
  /** The project directory here (the local kernel's cwd; remote launchers may map or ignore it). */
  cwd: string;
  /**
   * The argv to run on the target: `[python, "-m", "relm.runner", ...]` (local transport) or
   * `[python, "-c", BOOTSTRAP]` (remote transport). `python` is the local interpreter's path for local
   * launchers, the launcher's `python` (default "python3") for remote ones.
   */
  inner: string[];
  /** The (scrubbed) environment the spawned command runs with, here. */
  env: NodeJS.ProcessEnv;
  /** Aborted when the kernel's start is given up (Ctrl-C): prepare() stops waiting then. */
  signal?: AbortSignal;
}

/** A command to spawn here. */
export interface LaunchCommand {
  file: string;
  args: string[];
  /** Default: LaunchContext.env. */
  env?: NodeJS.ProcessEnv;
  /** Default: LaunchContext.cwd. */
  cwd?: string;
}

type Transport = "local" | "remote";

/** One kernel target, parsed from its URI. */
export interface Launcher {
  /** The URI as given (normalised), for journals, errors and `relm doctor`. */
  readonly uri: string;
  /** The scheme: "local", "cmd", "ssh", ... */
  readonly scheme: string;
  readonly transport: Transport;
  /**
   * Kernels may be forked from the local warm template (src/kernel/template.ts): only the plain local
   * launcher; every other one spawns (there is no template on the other side).
   */
  readonly forkable: boolean;
  /** Remote transport: the interpreter to run over there (default "python3"). */
  readonly python?: string;
  /**
   * Remote transport: the directory the runner starts in over there, when the launcher does not `cd`
   * itself (the bootstrap changes into it); absent: wherever the command starts.
   */
  readonly workdir?: string;
  /**
   * Awaited before each command(): work the launcher does once, asynchronously, before its first
   * kernel (slurm's alloc=session waits here for its allocation). Not counted in the ready timeout.
   */
  prepare?(ctx: LaunchContext): Promise<void>;
  /** The command line that runs `ctx.inner` on the target. */
  command(ctx: LaunchContext): LaunchCommand;
  /**
   * Why the target ended the kernel, read from the launcher's stderr (e.g. "Slurm step 12.0 on n1 was
   * cancelled (scancel)"); undefined when the target said nothing (the kernel itself crashed). Added to
   * the crash note the model and a failed child's parent see.
   */
  explainExit?(stderr: string, exit: RunnerExit): string | undefined;
  /**
   * A target with a queue (a batch scheduler): true while what its client has said on stderr so far
   * shows the kernel still waiting for resources. The ready timeout does not run while it waits, and
   * starts again in full once the resources are granted: a job may sit in a cluster's queue for
   * minutes, which is the scheduler's wait, not a kernel that failed to start (an interrupt, the time
   * budget and the start's signal still end it).
   */
  queued?(stderr: string): boolean;
  /**
   * For a target relm doctor does not start a kernel on (a job, a pod): what would stop a kernel's
   * start, found without starting one (the client missing, a partition the cluster does not have);
   * undefined when nothing does.
   */
  preflight?(env: NodeJS.ProcessEnv): Promise<string | undefined>;
  /**
   * A launcher whose process has its own pid namespace (the sandbox): the host's pid of the process
   * called `inner` in there, below `outer` (the pid spawned here); undefined once it is gone.
   */
  hostPid?(outer: number, inner: number): number | undefined;
}

/** A URI scheme and how to parse it; registered in SCHEMES (index.ts). */
export interface LauncherScheme {
  /** "ssh" for `ssh://...`, "cmd" for `cmd:...`, "local" for the bare word `local`. */
  readonly scheme: string;
  /** The accepted form, for messages, e.g. "ssh://[user@]host[:port][/workdir]". */
  readonly syntax: string;
  /** `where` names the source for messages: "--kernel", "config kernel", "agent spec review.yaml". */
  parse(uri: string, where: string): Launcher;
}
