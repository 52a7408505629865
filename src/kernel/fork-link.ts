import type { Socket } from "node:net";
import { type ForkChannel, forkToken } from "./fork-server.js";
import { killGroup } from "./host-exit.js";
import type { RunnerExit, RunnerLink } from "./link.js";
import { RunnerProcess, type RunnerSpawnOptions } from "./runner-process.js";
import { ForkingTemplate, forkRefusal } from "./template.js";
import type { KernelTemplate, PythonInfo } from "./types.js";

// After the protocol socket closes, how long to wait for the template's report of how the kernel
// ended; after the report, how long to let the sockets drain (a cell's forked process may hold them).
// The report comes within milliseconds on an idle machine, but on two busy cores the template can
// take longer than 200 ms to reap and write it; the wait only runs out when the template is hung.
const REPORT_WAIT_MS = 3_000;
const CLOSE_GRACE_MS = 500;

/**
 * A ready runner: forked from `template` when there is one that can serve this interpreter and
 * environment, else spawned; `fallback` says why a given template was not used.
 */
export async function startRunner(
  template: KernelTemplate | undefined,
  python: PythonInfo,
  opts: RunnerSpawnOptions,
): Promise<{ runner: RunnerProcess; forkedFrom?: number; fallback?: string }> {
  if (!template) return { runner: await RunnerProcess.start(opts) };
  let fallback = forkRefusal(template, python, opts.env, opts.launcher);
  if (fallback === null) {
    try {
      return { runner: await forkRunner(template, opts), forkedFrom: template.pid };
    } catch (e) {
      if (opts.signal?.aborted) throw e; // cancelled: no interpreter started in its place
      fallback = `forking from the template failed: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  return { runner: await RunnerProcess.start(opts), fallback };
}

/** Forks a kernel from `template` and resolves once it is ready; rejects if anything goes wrong. */
export async function forkRunner(template: KernelTemplate, opts: RunnerSpawnOptions): Promise<RunnerProcess> {
  if (!(template instanceof ForkingTemplate)) throw new Error("not a forking template");
  const token = forkToken();
  const link = new ForkLink(template, token);
  let pid: number;
  try {
    pid = await template.fork({
      token,
      cwd: opts.cwd,
      env: opts.env,
      outputDir: opts.outputDir,
      firstCount: opts.firstCount,
    });
  } catch (e) {
    link.abandon();
    throw e;
  }
  link.attach(pid);
  return RunnerProcess.open(link, opts);
}

/**
 * A forked kernel's channel: its two connections to the template's socket, plus the template's
 * report of its exit. Death shows first as the protocol socket closing; the exit code and signal come
 * from the template (its parent) a moment later.
 */
class ForkLink implements RunnerLink {
  pid = 0;
  readonly gone: Promise<RunnerExit>;
  private resolveGone!: (exit: RunnerExit) => void;
  private readonly sockets = new Map<ForkChannel, Socket>();
  /** Connected channels not yet closed. */
  private readonly open = new Set<ForkChannel>();
  private protocolClosed = false;
  private exit: RunnerExit | null = null;
  private done = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly release: () => void;
  private unwatch: () => void = () => {};
  private listeners: Record<ForkChannel, (text: string) => void> | null = null;
  /** Text that arrived before listen(). */
  private readonly early: [ForkChannel, string][] = [];

  constructor(
    private readonly template: ForkingTemplate,
    token: string,
  ) {
    this.gone = new Promise((resolve) => {
      this.resolveGone = resolve;
    });
    this.release = template.server.expect(token, (channel, socket, head) =>
      this.connected(channel, socket, head),
    );
  }

  /** In a sandbox: the host pid of a pid the kernel reports (see ForkingTemplate.hostPid). */
  hostPid(inner: number): number | undefined {
    return this.template.hostPid(inner, this.pid || undefined); // the kernel is below its keeper
  }

  attach(pid: number): void {
    this.pid = pid;
    this.unwatch = this.template.watch(pid, (exit) => {
      this.exit = exit;
      killGroup(pid, "SIGKILL"); // what its cells started, as when a spawned runner exits
      this.settle();
    });
  }

  kill(signal: NodeJS.Signals): void {
    if (this.pid) this.template.killFork(this.pid, signal);
  }

  /** The fork never happened. */
  abandon(): void {
    this.finish({ code: null, signal: null });
  }

  listen(onProtocol: (text: string) => void, onDiagnostics: (text: string) => void): void {
    this.listeners = { protocol: onProtocol, stderr: onDiagnostics };
    for (const [channel, text] of this.early.splice(0)) this.listeners[channel](text);
  }

  write(text: string): void {
    const socket = this.sockets.get("protocol");
    if (!this.done && socket && !socket.destroyed) socket.write(text);
  }

  private connected(channel: ForkChannel, socket: Socket, head: string): void {
    if (this.done || this.sockets.has(channel)) {
      socket.destroy();
      return;
    }
    this.sockets.set(channel, socket);
    this.open.add(channel);
    if (this.sockets.size === 2) this.release(); // no other connection may claim this token
    socket.on("data", (text: string) => this.deliver(channel, text));
    socket.on("error", () => {}); // "close" follows
    socket.on("close", () => {
      this.open.delete(channel);
      if (channel === "protocol" && !this.protocolClosed) {
        // The runner never closes its protocol while it lives: it is gone, or going. SIGTERM, not
        // SIGKILL: on Linux this is its keeper, which then ends everything below it (and exits); the
        // template's report of the exit then kills what is left of the group (elsewhere: the runner's).
        this.protocolClosed = true;
        if (this.pid) killGroup(this.pid, "SIGTERM");
      }
      this.settle();
    });
    if (head) this.deliver(channel, head);
    socket.resume();
  }

  private deliver(channel: ForkChannel, text: string): void {
    if (this.listeners) this.listeners[channel](text);
    else this.early.push([channel, text]);
  }

  private settle(): void {
    if (this.done) return;
    if (this.exit && this.open.size === 0) {
      this.finish(this.exit);
      return;
    }
    if (this.timer || !(this.exit || this.protocolClosed)) return;
    // With the report: let the sockets drain. Without it yet: wait a moment for it.
    const wait = this.exit ? CLOSE_GRACE_MS : REPORT_WAIT_MS;
    this.timer = setTimeout(() => this.finish(this.exit ?? { code: null, signal: null }), wait);
  }

  private finish(exit: RunnerExit): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.release();
    this.unwatch();
    for (const socket of this.sockets.values()) socket.destroy();
    this.resolveGone(exit);
  }
}
