import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { KernelStartError } from "./errors.js";
import { killGroup, trackGroup, untrackGroup } from "./host-exit.js";
import { BOOTSTRAP, bootstrapPayload } from "./launchers/bootstrap.js";
import { LOCAL } from "./launchers/local.js";
import type { Launcher } from "./launchers/types.js";
import { LineSplitter } from "./lines.js";
import { describeExit, type RunnerExit, type RunnerLink } from "./link.js";
import type { HostMessage, ReadyMessage, ReplyMessage, RunnerMessage } from "./protocol.js";
import { notInstalled } from "./which.js";

export type { RunnerExit } from "./link.js";

export interface RunnerSpawnOptions {
  python: string;
  cwd: string;
  /** Already scrubbed, with relm's python dir on PYTHONPATH. */
  env: NodeJS.ProcessEnv;
  outputDir?: string;
  /** Execution count of the first cell (continues the numbering across restarts). */
  firstCount: number;
  readyTimeoutMs?: number;
  /** Aborted: the start is given up (the runner is killed, the start rejects with KernelStartError). */
  signal?: AbortSignal;
  /** Where and how the runner is started; default LOCAL (`python -m relm.runner` here). */
  launcher?: Launcher;
  onStream: (id: number, text: string) => void;
  /** The kernel went into its launcher's queue (Launcher.queued); `said` is the client's last line. */
  onQueued?: (said: string) => void;
  /** `runner` is the process that asked; answer on it. */
  onRequest: (id: number, method: string, params: unknown, runner: RunnerProcess) => void;
}

type Request = Exclude<Extract<HostMessage, { id: number }>, { type: "response" }>;
type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;
/** A host message that expects a reply, before its id is assigned. */
type RequestBody = WithoutId<Request>;

/** Raised to callers waiting on a runner that died. */
export class RunnerExitedError extends Error {
  constructor(readonly exit: RunnerExit) {
    super(`kernel process exited (${describeExit(exit)})`);
  }
}

const STDERR_KEEP = 64 * 1024;
const CLOSE_GRACE_MS = 500;
/** How long a queued launcher's client (srun) has to withdraw its job before it is killed. */
const QUEUE_LEAVE_MS = 10_000;

/**
 * One runner process (`python -m relm.runner`, or forked from the template), in its own process group.
 * On Linux a keeper stands between it and the host (python/relm/keeper.py): the link's process is the
 * keeper, the runner its child. Signals go to the runner's group; the keeper is never killed with
 * SIGKILL, since it ends what the runner's cells detached once the runner is gone.
 */
export class RunnerProcess {
  private kernelPid: number;
  /** The runner's keeper (the link's process), when there is one. */
  keeper: number | undefined;
  /** Resolves once the process and its channel are gone (and its group has been killed). */
  readonly exited: Promise<RunnerExit>;
  ready!: ReadyMessage;
  exit: RunnerExit | null = null;
  /**
   * The runner shares no disk and no signals with this machine (launcher transport "remote"):
   * interrupts go over the protocol, and files cross it (remote-files.ts) under `ready.scratch`.
   */
  readonly remote: boolean;
  private stderr = "";
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (m: ReplyMessage) => void; reject: (e: Error) => void }
  >();
  private onReady: ((m: ReadyMessage) => void) | null = null;
  /**
   * The runner's ready message. Listened for before the link delivers anything: a forked kernel can
   * say ready before the template has reported the fork, and its link then hands that message on the
   * moment we listen (it was once dropped there, and the fork waited out the ready timeout).
   */
  private readonly readySaid: Promise<ReadyMessage>;
  private gone: AbortController | undefined;
  /** Its launcher's queued() on the stderr so far: the kernel waits in a scheduler's queue. */
  private inQueue = false;
  /** Called when the kernel leaves the queue (its resources granted): open() starts its timeout again. */
  private onGranted: (() => void) | null = null;

  /** Aborted when the process exits: a host call it made can be answered to nobody, and stops waiting. */
  get goneSignal(): AbortSignal {
    if (!this.gone) {
      const gone = new AbortController();
      this.gone = gone;
      if (this.exit) gone.abort();
      else void this.exited.then(() => gone.abort());
    }
    return this.gone.signal;
  }

  private constructor(
    private readonly link: RunnerLink,
    private readonly opts: RunnerSpawnOptions,
  ) {
    this.kernelPid = link.pid;
    this.remote = opts.launcher?.transport === "remote";
    trackGroup(link.pid);
    this.readySaid = new Promise((resolve) => {
      this.onReady = resolve;
    });
    const lines = new LineSplitter((line) => this.receive(line));
    link.listen(
      (text) => lines.push(text),
      (text) => {
        this.stderr = (this.stderr + text).slice(-STDERR_KEEP);
        const queued = opts.launcher?.queued?.(this.stderr) ?? false;
        if (this.inQueue && !queued) this.onGranted?.();
        if (!this.inQueue && queued) opts.onQueued?.(lastLine(this.stderr));
        this.inQueue = queued;
      },
    );
    this.exited = link.gone.then((exit) => {
      untrackGroup(this.kernelPid);
      untrackGroup(link.pid);
      this.exit = exit;
      const err = new RunnerExitedError(exit);
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
      return exit;
    });
  }

  /** The runner's pid and process group: the link's process until ready, then the runner's own. */
  get pid(): number {
    return this.kernelPid;
  }

  /** Spawns `python -m relm.runner` and resolves once it is ready. */
  static async start(opts: RunnerSpawnOptions): Promise<RunnerProcess> {
    return RunnerProcess.open(await spawnLink(opts), opts);
  }

  /** Resolves once the runner at the other end of `link` is ready; kills it if it never is. */
  static async open(link: RunnerLink, opts: RunnerSpawnOptions): Promise<RunnerProcess> {
    const runner = new RunnerProcess(link, opts);
    const timeoutMs = opts.readyTimeoutMs ?? 60_000;
    try {
      runner.ready = await new Promise<ReadyMessage>((resolve, reject) => {
        // While a scheduler's queue holds the kernel the timeout does not count; once its resources
        // are granted it starts again in full (the boot itself must still be quick).
        const expired = () => {
          if (!runner.inQueue)
            reject(new KernelStartError(`the kernel did not start within ${timeoutMs} ms`, runner.stderr));
        };
        let timer = setTimeout(expired, timeoutMs);
        runner.onGranted = () => {
          clearTimeout(timer);
          timer = setTimeout(expired, timeoutMs);
        };
        const settled = () => {
          clearTimeout(timer);
          runner.onGranted = null;
        };
        void runner.readySaid.then((msg) => {
          settled();
          resolve(msg);
        });
        void runner.exited.then((exit) => {
          settled();
          reject(
            new KernelStartError(`the kernel exited while starting (${describeExit(exit)})`, runner.stderr),
          );
        });
        const cancel = () => {
          settled();
          reject(new KernelStartError("the kernel's start was cancelled", runner.stderr));
        };
        if (opts.signal?.aborted) cancel();
        else opts.signal?.addEventListener("abort", cancel, { once: true });
      });
    } catch (e) {
      runner.kill();
      await runner.exited;
      throw e;
    }
    return runner;
  }

  get alive(): boolean {
    return this.exit === null;
  }

  /** The runner's own stderr (its crashes), last 64 KB. */
  get stderrTail(): string {
    return this.stderr;
  }

  send(msg: HostMessage): void {
    if (this.alive) this.link.write(`${JSON.stringify(msg)}\n`);
  }

  /** Sends a message with a fresh id and resolves with the reply carrying that id. */
  request(msg: RequestBody): Promise<ReplyMessage> {
    if (!this.alive) return Promise.reject(new RunnerExitedError(this.exit!));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.link.write(`${JSON.stringify({ ...msg, id })}\n`);
    });
  }

  /** Signals the runner's whole process group (a remote one: SIGINT as a protocol message). */
  signal(signal: NodeJS.Signals): void {
    if (!this.alive) return;
    if (this.remote && signal === "SIGINT") this.send({ type: "interrupt" });
    else killGroup(this.pid, signal);
  }

  /** Kills the runner; a remote one is also asked to exit, in case its launcher's client dies slowly. */
  kill(): void {
    if (this.remote) this.send({ type: "shutdown" });
    if (this.inQueue) {
      // Still in a scheduler's queue: SIGKILL would leave the job queued (srun cannot withdraw it),
      // SIGTERM has the client withdraw it and exit. SIGKILL follows if it does not.
      killGroup(this.link.pid, "SIGTERM");
      const timer = setTimeout(() => killGroup(this.link.pid, "SIGKILL"), QUEUE_LEAVE_MS);
      timer.unref();
      void this.exited.then(() => clearTimeout(timer));
      return;
    }
    if (this.pid === this.link.pid && this.link.kill) this.link.kill("SIGKILL");
    else killGroup(this.pid, "SIGKILL");
  }

  private receive(line: string): void {
    let msg: RunnerMessage;
    try {
      msg = JSON.parse(line) as RunnerMessage;
    } catch {
      this.stderr = `${this.stderr}unparseable protocol line: ${line.slice(0, 200)}\n`.slice(-STDERR_KEEP);
      return;
    }
    switch (msg.type) {
      case "stream":
        this.opts.onStream(msg.id, msg.text);
        break;
      case "request":
        this.opts.onRequest(msg.id, msg.method, msg.params, this);
        break;
      case "ready": {
        if (!this.onReady) break; // said once; a later one is not the runner's
        // A remote runner's pid is not one of ours: signals go to the launcher's group (its client).
        // A sandboxed runner says its pid inside the sandbox's pid namespace: the host's is looked up.
        const pid = this.link.hostPid && Number.isSafeInteger(msg.pid) ? this.link.hostPid(msg.pid) : msg.pid;
        if (
          !this.remote &&
          pid !== undefined &&
          pid !== this.link.pid &&
          Number.isSafeInteger(pid) &&
          pid > 0
        ) {
          // Below a keeper: the runner's own group gets signals; the keeper ends with SIGTERM.
          this.keeper = this.link.pid;
          this.kernelPid = pid;
          trackGroup(pid);
          trackGroup(this.link.pid, "SIGTERM");
        }
        this.onReady(msg);
        this.onReady = null;
        break;
      }
      default: {
        const w = this.waiting.get(msg.id);
        if (w) {
          this.waiting.delete(msg.id);
          w.resolve(msg);
        }
      }
    }
  }
}

/**
 * The runner as a child of this process, the protocol on its stdin/stdout: `python -m relm.runner`
 * (local transport), or the bootstrap (remote transport; relm's Python package is written on stdin
 * first), each wrapped in its launcher's command.
 */
async function spawnLink(opts: RunnerSpawnOptions): Promise<RunnerLink> {
  const launcher = opts.launcher ?? LOCAL;
  const remote = launcher.transport === "remote";
  let inner: string[];
  if (remote) {
    inner = [launcher.python ?? "python3", "-c", BOOTSTRAP];
  } else {
    inner = [opts.python, "-m", "relm.runner", "--first-count", String(opts.firstCount)];
    if (opts.outputDir) inner.push("--output-dir", opts.outputDir);
  }
  const ctx = { cwd: opts.cwd, inner, env: opts.env, ...(opts.signal && { signal: opts.signal }) };
  await launcher.prepare?.(ctx);
  const cmd = launcher.command(ctx);
  const child = await spawnGroup(
    { file: cmd.file, args: cmd.args, cwd: cmd.cwd ?? opts.cwd, env: cmd.env ?? opts.env },
    launcher === LOCAL ? cmd.file : `${cmd.file} (kernel ${launcher.uri})`,
  );
  const link = new SpawnLink(child);
  const hostPid = launcher.hostPid; // sandbox: its own pid namespace
  if (hostPid) link.hostPid = (inner) => hostPid(link.pid, inner);
  if (remote) {
    const settings = { env: remoteEnv(opts.env), firstCount: opts.firstCount };
    link.write(bootstrapPayload(launcher.workdir ? { ...settings, workdir: launcher.workdir } : settings));
  }
  return link;
}

/**
 * Spawns a command piped, in its own process group (interrupts and kills reach what it starts too),
 * once it has started; a KernelStartError naming `what` when it cannot be.
 */
export async function spawnGroup(
  cmd: { file: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv },
  what = cmd.file,
): Promise<ChildProcessWithoutNullStreams> {
  const child = spawn(cmd.file, cmd.args, { cwd: cmd.cwd, env: cmd.env, detached: true, stdio: "pipe" });
  const error = await new Promise<Error | null>((resolve) => {
    child.once("spawn", () => resolve(null));
    child.once("error", resolve);
  });
  if (error) throw new KernelStartError(`could not start ${what}: ${spawnFailure(error, cmd)}`, "");
  return child;
}

function lastLine(text: string): string {
  return (
    text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? ""
  );
}

/** Why a spawn failed, in words: Node says "spawn srun ENOENT" for a missing program and a missing cwd alike. */
function spawnFailure(
  error: NodeJS.ErrnoException,
  cmd: { file: string; cwd: string; env: NodeJS.ProcessEnv },
) {
  if (error.code !== "ENOENT") return error.message;
  if (!existsSync(cmd.cwd)) return `the working directory ${cmd.cwd} does not exist`;
  if (cmd.file.includes("/")) return `${cmd.file} does not exist`;
  return notInstalled(cmd.file, cmd.env);
}

// What of the kernel's environment goes with a remote kernel: relm's own settings, never the host's
// PATH, HOME or anything else (the other machine has its own).
const REMOTE_ENV =
  /^(PYTHONUNBUFFERED|GIT_TERMINAL_PROMPT|GIT_EDITOR|EDITOR|VISUAL|DEBIAN_FRONTEND|PIP_NO_INPUT|RELM_KERNEL|RELM_KERNEL_ENGINE)$/;

function remoteEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && REMOTE_ENV.test(name)) out[name] = value;
  return out;
}

class SpawnLink implements RunnerLink {
  readonly pid: number;
  readonly gone: Promise<RunnerExit>;
  hostPid?: (inner: number) => number | undefined;

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.pid = child.pid!;
    child.stdin.on("error", () => {}); // EPIPE when the runner died; the exit handler reports it
    this.gone = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        // Members of the group (a cell's background processes) may still hold its stdio open.
        killGroup(this.pid, "SIGKILL");
        const timer = setTimeout(() => resolve({ code, signal }), CLOSE_GRACE_MS);
        child.once("close", () => {
          clearTimeout(timer);
          resolve({ code, signal });
        });
      });
    });
  }

  listen(onProtocol: (text: string) => void, onDiagnostics: (text: string) => void): void {
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", onProtocol);
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", onDiagnostics);
  }

  write(text: string | Buffer): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.stdin.write(text);
  }
}
