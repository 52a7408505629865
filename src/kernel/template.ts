import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { Socket } from "node:net";
import path from "node:path";
import { scrubEnvironment } from "./env.js";
import { KernelStartError } from "./errors.js";
import { ForkServer } from "./fork-server.js";
import { killGroup, trackGroup, untrackGroup } from "./host-exit.js";
import { LineSplitter } from "./lines.js";
import type { RunnerExit } from "./link.js";
import { spawnGroup } from "./runner-process.js";
import type { ProcessWrapper } from "./sandbox/types.js";
import type { KernelTemplate, KernelTemplateOptions, PythonInfo } from "./types.js";

/**
 * The host side of the warm template (`python -m relm.template`): a Python process that has imported
 * IPython and relm's runtime once and forks kernels from that state on request (see
 * python/relm/template.py). Kernels use it through `KernelOptions.template`.
 */

const READY_TIMEOUT_MS = 60_000;
const FORK_TIMEOUT_MS = 10_000;
const CLOSE_GRACE_MS = 1_000;
const STDERR_KEEP = 64 * 1024;

// Read by Python (or relm's runtime) when the template starts, so a forked kernel would run with the
// template's values: a kernel whose environment sets them differently is spawned instead.
// PYTHONPATH is re-applied after the fork and PYTHONUNBUFFERED is always 1.
const STARTUP_ENV = /^(PYTHON(?!PATH$|UNBUFFERED$).*|LC_.*|LANG|LD_.*|DYLD_.*|RELM_KERNEL_ENGINE)$/;

/** Starts a template that forks kernels for `options.python`. Never forks on Windows (see `alive`). */
export async function startKernelTemplate(options: KernelTemplateOptions): Promise<KernelTemplate> {
  if (process.platform !== "linux" && process.platform !== "darwin") {
    return new UnavailableTemplate(options.python, `forking kernels is not supported on ${process.platform}`);
  }
  const server = await ForkServer.open(options.socketDir);
  try {
    return await ForkingTemplate.start(options, server);
  } catch (e) {
    await server.close();
    throw e;
  }
}

interface ForkRequest {
  token: string;
  cwd: string;
  /** Already scrubbed (the kernel's own environment). */
  env: NodeJS.ProcessEnv;
  outputDir?: string;
  firstCount: number;
}

type TemplateMessage =
  | { type: "ready"; pid: number; python: string; ipython: string | null; keepers?: boolean }
  | { type: "forked"; id: number; pid: number }
  | { type: "error"; id: number; error: string }
  | { type: "exit"; pid: number; code: number | null; signal: NodeJS.Signals | null };

/** A live template process. */
export class ForkingTemplate implements KernelTemplate {
  readonly pid: number;
  /** Resolves once the template process is gone. */
  readonly exited: Promise<void>;
  private exitText: string | null = null;
  private stderr = "";
  private nextId = 1;
  /** Runs while fork requests wait; restarted by each answer (see armStallTimer). */
  private stallTimer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | null = null;
  private readonly pending = new Map<
    number,
    { resolve: (pid: number) => void; reject: (e: Error) => void }
  >();
  /** Forked kernels not yet reported dead. */
  private readonly kernels = new Set<number>();
  private readonly watchers = new Map<number, (exit: RunnerExit) => void>();
  /** Exit reports that arrived before anyone watched that pid. */
  private readonly unclaimed = new Map<number, RunnerExit>();
  private onReady: ((msg: Extract<TemplateMessage, { type: "ready" }>) => void) | null = null;
  /**
   * Each fork is a keeper with the kernel below it (Linux, python/relm/keeper.py): it is ended with
   * SIGTERM, never SIGKILL, so that it can end what the kernel's cells detached.
   */
  private keepers = false;
  /** In a sandbox: the host pid of the template's own Python process (below the sandbox's launcher). */
  private innerRoot: number | undefined;
  /** Inside a sandbox's pid namespace: the host pids of forked kernels, by the pid the template said. */
  private readonly hostPids = new Map<number, number>();

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly server: ForkServer,
    private info: PythonInfo,
    private readonly env: NodeJS.ProcessEnv,
    /** What the template was started in (the sandbox); kernels forked from it share it. */
    readonly wrapper: ProcessWrapper | undefined,
  ) {
    this.pid = child.pid!;
    trackGroup(this.pid);
    const lines = new LineSplitter((line) => this.receive(line));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => lines.push(chunk));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_KEEP);
    });
    child.stdin.on("error", () => {}); // EPIPE once it died; the exit handler reports it
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.exitText = signal ? `killed by ${signal}` : `exit code ${code}`;
        killGroup(this.pid, "SIGKILL"); // a child caught between fork() and setpgid()
        untrackGroup(this.pid);
        this.died();
        void this.server.close();
        resolve();
      });
    });
    // An idle template must not keep the host alive; pending forks hold the stall timer.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as Socket).unref?.();
  }

  static async start(options: KernelTemplateOptions, server: ForkServer): Promise<ForkingTemplate> {
    const env = scrubEnvironment(options.env ?? process.env);
    // Nothing importable there: sys.path[0] is the start directory (each fork replaces it).
    const local = {
      file: options.python.path,
      args: ["-m", "relm.template"],
      env,
      cwd: path.dirname(server.path),
    };
    const wrapped = options.wrapper?.command({ cwd: local.cwd, inner: [local.file, ...local.args], env }, [
      server.path,
    ]);
    const command = wrapped ? { ...local, ...wrapped } : local;
    const child = await spawnGroup(command); // its own process group, like the kernels
    const template = new ForkingTemplate(child, server, options.python, env, options.wrapper);
    const cancel = () => killGroup(template.pid, "SIGKILL"); // its exit rejects the wait below
    if (options.signal?.aborted) cancel();
    else options.signal?.addEventListener("abort", cancel, { once: true });
    try {
      const ready = await new Promise<Extract<TemplateMessage, { type: "ready" }>>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new KernelStartError("the kernel template did not start in time", template.stderr));
        }, READY_TIMEOUT_MS);
        template.onReady = (msg) => {
          clearTimeout(timer);
          resolve(msg);
        };
        void template.exited.then(() => {
          clearTimeout(timer);
          const why = `the kernel template exited while starting (${template.exitText})`;
          reject(new KernelStartError(why, template.stderr));
        });
      });
      template.info = { path: options.python.path, version: ready.python, ipython: ready.ipython };
      if (template.wrapper?.hostPid) template.innerRoot = template.wrapper.hostPid(template.pid, ready.pid);
      template.keepers = ready.keepers === true;
    } catch (e) {
      killGroup(template.pid, "SIGKILL");
      await template.exited;
      throw e;
    } finally {
      options.signal?.removeEventListener("abort", cancel);
    }
    return template;
  }

  /** As the template reports itself (`ipython: null` when its kernels fall back to plain exec). */
  get python(): PythonInfo {
    return this.info;
  }

  get alive(): boolean {
    return this.exitText === null && this.closing === null;
  }

  get forkedAlive(): number {
    return this.kernels.size;
  }

  /**
   * Why a kernel with this interpreter, (scrubbed) environment and wrapper (its sandbox) cannot be
   * forked from here, or null.
   */
  refusal(python: PythonInfo, env: NodeJS.ProcessEnv, wrapper?: ProcessWrapper): string | null {
    if (!this.alive) return `the kernel template is not running (${this.exitText ?? "closed"})`;
    // A sandbox launcher is known by its own forkEnv; the plain local launcher has none.
    if (wrapper?.forkEnv !== this.wrapper?.forkEnv) return "the kernel template runs in another sandbox";
    if (path.resolve(python.path) !== path.resolve(this.python.path)) {
      return `the kernel uses ${python.path}, the template ${this.python.path}`;
    }
    const names = new Set([...Object.keys(env), ...Object.keys(this.env)]);
    const differ = [...names].filter((n) => STARTUP_ENV.test(n) && env[n] !== this.env[n]).sort();
    if (differ.length > 0)
      return `the kernel's environment differs from the template's in ${differ.join(", ")}`;
    return null;
  }

  /** Forks a kernel; resolves with its pid once forked (it then connects with `request.token`). */
  fork(request: ForkRequest): Promise<number> {
    if (!this.alive) {
      return Promise.reject(new Error(`the kernel template is not running (${this.exitText ?? "closed"})`));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.armStallTimer();
      const msg = {
        type: "fork",
        id,
        token: request.token,
        socket: this.server.path,
        cwd: path.resolve(request.cwd),
        env: this.wrapper?.forkEnv ? this.wrapper.forkEnv(request.env) : request.env,
        output_dir: request.outputDir ?? null,
        first_count: request.firstCount,
      };
      this.child.stdin.write(`${JSON.stringify(msg)}\n`);
    });
  }

  /**
   * The template forks one request at a time, so a burst of requests (rlm.map of 32) queues: a request's
   * wait is the queue's length times a fork, seconds on a busy machine. What is timed is the template's
   * progress, not a request's wait: only when it has answered nothing for FORK_TIMEOUT_MS while requests
   * wait are they all failed (and fall back to spawning). A per-request timer used to fail the tail of
   * a burst on a loaded machine, and each of those spawned a cold interpreter (~1 s of CPU) instead.
   */
  private armStallTimer(): void {
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    if (this.pending.size === 0) return;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = undefined;
      const err = new Error(`the kernel template did not fork within ${FORK_TIMEOUT_MS} ms`);
      const stalled = [...this.pending.values()];
      this.pending.clear(); // a late "forked" finds no one and kills the kernel
      for (const p of stalled) p.reject(err);
    }, FORK_TIMEOUT_MS); // not unref'd: a waiting fork keeps the host alive
  }

  /**
   * Calls `onExit` once with how forked kernel `pid` ended (the template is its parent, not us).
   * If the template itself dies, its kernels die with it (and are killed here): reported as SIGKILL.
   */
  watch(pid: number, onExit: (exit: RunnerExit) => void): () => void {
    const known = this.unclaimed.get(pid) ?? (this.exitText !== null ? templateDeath() : undefined);
    if (known) {
      this.unclaimed.delete(pid);
      queueMicrotask(() => onExit(known));
      return () => {};
    }
    this.watchers.set(pid, onExit);
    return () => {
      if (this.watchers.get(pid) === onExit) this.watchers.delete(pid);
    };
  }

  /** Stops the template and kills every kernel forked from it. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const pid of this.kernels) killGroup(pid, this.endSignal);
      this.child.stdin.end(); // the template kills its kernels (even one forked just now) and exits
      const timer = setTimeout(() => killGroup(this.pid, "SIGKILL"), CLOSE_GRACE_MS);
      await this.exited;
      clearTimeout(timer);
      await this.server.close();
    })();
    return this.closing;
  }

  /**
   * The host pid of a process the template (in a sandbox's pid namespace) calls `inner`; undefined
   * when it cannot be found. Identity outside a sandbox.
   */
  hostPid(inner: number, near?: number): number | undefined {
    const hostPid = this.wrapper?.hostPid;
    if (!hostPid) return inner;
    // Walking down from the sandbox's own process reads every kernel's /proc entry, per lookup: with
    // hundreds of forked kernels that was most of the host's work per child. The process is almost
    // always right below `near` (a kernel's keeper) or the template itself: looked for there first.
    for (const outer of [near, this.innerRoot]) {
      const found = outer === undefined ? undefined : hostPid(outer, inner);
      if (found !== undefined) return found;
    }
    return hostPid(this.pid, inner);
  }

  /**
   * Signals forked process `pid`'s group. A fork reported a moment ago may not have made its group yet
   * (python/relm/forked.py `_detach` does it first thing): a signal to the group would miss it, and the
   * kernel would start for no one (a start cancelled right then waited for its exit forever, holding
   * the host's shutdown). It is then signalled itself: until its exit is reported, the template has not
   * reaped it, so the pid is still that process.
   */
  killFork(pid: number, signal: NodeJS.Signals): void {
    if (killGroup(pid, signal) || !this.kernels.has(pid)) return;
    try {
      process.kill(pid, signal);
    } catch {
      // it exited meanwhile; its report follows
    }
  }

  /** How a forked kernel is ended from here: its keeper with SIGTERM, else its group with SIGKILL. */
  private get endSignal(): NodeJS.Signals {
    return this.keepers ? "SIGTERM" : "SIGKILL";
  }

  private died(): void {
    const err = new Error(`the kernel template exited (${this.exitText})`);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.armStallTimer();
    // On Linux they die with it (PR_SET_PDEATHSIG; keepers get SIGTERM); elsewhere they would live on.
    for (const pid of this.kernels) killGroup(pid, this.endSignal);
    for (const pid of this.kernels) untrackGroup(pid);
    this.kernels.clear();
    const watchers = [...this.watchers.values()];
    this.watchers.clear();
    for (const onExit of watchers) onExit(templateDeath());
  }

  private receive(line: string): void {
    let msg: TemplateMessage;
    try {
      msg = JSON.parse(line) as TemplateMessage;
    } catch {
      this.stderr = `${this.stderr}unparseable template line: ${line.slice(0, 200)}\n`.slice(-STDERR_KEEP);
      return;
    }
    switch (msg.type) {
      case "ready":
        this.onReady?.(msg);
        this.onReady = null;
        break;
      case "forked": {
        const pid = this.hostPid(msg.pid);
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        this.armStallTimer();
        if (pid === undefined) {
          // In a sandbox, and already gone: its exit report follows and finds no one.
          p?.reject(new Error("the forked kernel exited at once"));
          break;
        }
        if (pid !== msg.pid) this.hostPids.set(msg.pid, pid);
        this.unclaimed.delete(pid); // a report for an earlier process that had this pid
        this.kernels.add(pid);
        trackGroup(pid, this.endSignal);
        if (p) p.resolve(pid);
        else this.killFork(pid, "SIGKILL"); // its request timed out: nobody will talk to it
        break;
      }
      case "error": {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        this.armStallTimer();
        p?.reject(new Error(`the kernel template could not fork: ${msg.error}`));
        break;
      }
      case "exit": {
        let pid = msg.pid;
        if (this.wrapper?.hostPid) {
          const known = this.hostPids.get(msg.pid);
          this.hostPids.delete(msg.pid);
          if (known === undefined) break; // never handed out (see "forked")
          pid = known;
        }
        this.kernels.delete(pid);
        untrackGroup(pid);
        const exit = { code: msg.code, signal: msg.signal };
        const onExit = this.watchers.get(pid);
        this.watchers.delete(pid);
        if (onExit) onExit(exit);
        else this.unclaimed.set(pid, exit);
        break;
      }
    }
  }
}

/** Stands in for a template where forking is unavailable: kernels given it are spawned. */
class UnavailableTemplate implements KernelTemplate {
  readonly pid = 0;
  readonly alive = false;
  readonly forkedAlive = 0;

  constructor(
    readonly python: PythonInfo,
    readonly reason: string,
  ) {}

  async close(): Promise<void> {}
}

/**
 * Why `template` cannot fork a kernel with this interpreter, (scrubbed) environment and wrapper (the
 * sandbox it must run in), or null.
 */
export function forkRefusal(
  template: KernelTemplate,
  python: PythonInfo,
  env: NodeJS.ProcessEnv,
  wrapper?: ProcessWrapper,
): string | null {
  if (template instanceof ForkingTemplate) return template.refusal(python, env, wrapper);
  if (template instanceof UnavailableTemplate) return template.reason;
  return "the template was not made by startKernelTemplate";
}

function templateDeath(): RunnerExit {
  return { code: null, signal: "SIGKILL" };
}
