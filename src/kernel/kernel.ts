import path from "node:path";
import { performance } from "node:perf_hooks";
import { longTimeout } from "../config/long-timeout.js";
import { scrubEnvironment } from "./env.js";
import { KernelClosedError, KernelRequestError } from "./errors.js";
import { startRunner } from "./fork-link.js";
import { LOCAL } from "./launchers/local.js";
import { describeExit } from "./link.js";
import type { ResultMessage } from "./protocol.js";
import { findPython } from "./python.js";
import { RemoteFiles } from "./remote-files.js";
import { type RunnerExit, RunnerExitedError, type RunnerProcess } from "./runner-process.js";
import { skillReport } from "./skill-report.js";
import { checkedRound, settleSnapshot } from "./snapshot-secrets.js";
import type {
  CellResult,
  ExecuteOptions,
  Kernel,
  KernelLifecycleEvent,
  KernelOptions,
  PythonInfo,
  RestoreReport,
  SnapshotReport,
  VariableSource,
  VariableSummary,
} from "./types.js";

const DEFAULT_CELL_TIMEOUT_MS = 300_000;
const DEFAULT_INTERRUPT_GRACE_MS = 3_000;
const INTERRUPT_REPEAT_MS = 250;
const DEFAULT_OUTPUT_CAP = 20_000;
const SHUTDOWN_GRACE_MS = 1_000;
const LOST = "All variables were lost.";

/**
 * Starts a Python kernel (IPython if available) and resolves once it accepts cells; forked from
 * `options.template` when given (and its interpreter, unless `options.python` says otherwise).
 */
export async function startKernel(options: KernelOptions): Promise<Kernel> {
  const launcher = options.launcher ?? LOCAL;
  // A remote kernel's interpreter is over there: named by its launcher, described by its ready message.
  const python =
    launcher.transport === "remote"
      ? { path: `${launcher.python ?? "python3"} on ${launcher.uri}`, version: "", ipython: null }
      : (options.python ?? options.template?.python ?? (await findPython(options.env ?? process.env)));
  const kernel = new LocalKernel(options, python);
  await kernel.start();
  return kernel;
}

/** A cell's timeout, the grace after its interrupt, and what the note calls it. */
interface CellLimit {
  timeoutMs: number;
  graceMs: number;
  reason: string;
  writeGate?: { file: string; tree: string };
}

/** Where a running cell stands with respect to its timeout. */
type Phase = "running" | "interrupted" | "killed";

class LocalKernel implements Kernel {
  private runner!: RunnerProcess;
  private readonly env: NodeJS.ProcessEnv;
  private readonly outputDir: string | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  /** Snapshots one at a time: the next reads the manifest the last one settled. */
  private snapshots: Promise<unknown> = Promise.resolve();
  private snapshotsPending = 0;
  private nextCount = 1;
  private closed = false;
  private shutdownDone: Promise<void> | null = null;
  /** Re-sends SIGINT while an interrupted cell is still running. */
  private interruptRepeat: NodeJS.Timeout | undefined;
  /** Output streamed by the running cell, kept in case the process dies before its result. */
  private streamed: string[] | null = null;
  /** Something the model must hear with its next cell (the kernel died while idle). */
  private pendingNote: string | null = null;
  /** Runners whose death the model has already been told about. */
  private readonly reported = new WeakSet<RunnerProcess>();

  constructor(
    private readonly options: KernelOptions,
    private readonly interpreter: PythonInfo,
  ) {
    this.env = scrubEnvironment(options.env ?? process.env, options.passEnv);
    this.outputDir = options.outputDir ? path.resolve(options.cwd, options.outputDir) : undefined;
  }

  get pid(): number {
    return this.runner.pid;
  }

  /** As the running kernel reports itself (`ipython: null` when it fell back to plain exec). */
  get python(): PythonInfo {
    return this.pythonOf(this.runner);
  }

  async start(): Promise<void> {
    this.runner = await this.spawn(this.options.startSignal);
  }

  execute(code: string, options: ExecuteOptions = {}): Promise<CellResult> {
    const limit: CellLimit = {
      timeoutMs: options.timeoutMs ?? this.options.cellTimeoutMs ?? DEFAULT_CELL_TIMEOUT_MS,
      graceMs: options.interruptGraceMs ?? this.options.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS,
      reason: options.timeoutReason ?? "cell timeout",
      writeGate: options.writeGate,
    };
    return this.serial(() => this.runCell(code, limit));
  }

  setVariable(name: string, source: VariableSource): Promise<VariableSummary> {
    return this.serial(async () => {
      const runner = await this.live();
      const files = this.files(runner);
      const msg = files
        ? await files.setVarMessage(name, source, this.options.cwd) // the file crosses first
        : "text" in source
          ? ({ type: "set_var", name, text: source.text } as const)
          : "pickle" in source
            ? ({ type: "set_var", name, pickle: source.pickle } as const)
            : ({ type: "set_var", name, file: path.resolve(this.options.cwd, source.file) } as const);
      const reply = await runner.request(msg);
      files?.dropped(msg);
      if (reply.type !== "var" || !reply.var)
        throw new KernelRequestError(errorOf(reply, "setVariable failed"));
      return reply.var;
    });
  }

  snapshot(dir: string, options: { final?: boolean } = {}): Promise<SnapshotReport> {
    const caps = this.options.snapshotCaps;
    // Queued behind the cells sent before it, so it holds the state after them; but the chain is not
    // held while the runner works on it: the next cell is sent at once and makes it give way.
    const send = () =>
      this.serial(async () => {
        const runner = await this.live();
        const files = this.files(runner); // a remote kernel writes it over there; fetched below
        const pending = runner.request({
          type: "snapshot",
          dir: files ? files.snapshotDir : dir,
          ...(caps && {
            max_var_bytes: caps.maxVarBytes,
            max_total_bytes: caps.maxTotalBytes,
            max_large_bytes: caps.maxLargeBytes,
          }),
          ...(options.final && { final: true }),
        });
        pending.catch(() => {}); // awaited below; a runner that dies first must not be "unhandled"
        return { reply: pending, files };
      });
    // One at a time: a round reads the manifest the one before it settled. Behind an unsettled one, it
    // is queued once that one is settled (and then holds a later state: still one between cells).
    const sent = this.snapshotsPending === 0 ? send() : this.snapshots.then(send);
    this.snapshotsPending++;
    const round = sent
      .then(async ({ reply, files }) => {
        const answer = await reply;
        if (answer.type !== "snapshot" || !answer.report) {
          throw new KernelRequestError(errorOf(answer, "snapshot failed"));
        }
        const report = checkedRound(answer.report); // its file names are the kernel's word
        await files?.pullSnapshot(dir, report);
        const settled = await settleSnapshot(dir, report, this.options.secrets ?? []);
        if (files && (report.unverified?.length ?? 0) > 0) await files.pushManifest(dir);
        return settled;
      })
      .finally(() => {
        this.snapshotsPending--;
      });
    this.snapshots = round.catch(() => {});
    return round;
  }

  restore(dir: string): Promise<RestoreReport> {
    return this.serial(async () => {
      const runner = await this.live();
      const files = this.files(runner);
      const reply = await runner.request({
        type: "restore",
        dir: files ? await files.pushSnapshot(dir) : dir,
      });
      if (reply.type !== "restored" || !reply.report) {
        throw new KernelRequestError(errorOf(reply, "restore failed"));
      }
      return reply.report;
    });
  }

  variables(): Promise<VariableSummary[]> {
    return this.serial(async () => {
      const reply = await (await this.live()).request({ type: "variables" });
      if (reply.type !== "vars" || !reply.list)
        throw new KernelRequestError(errorOf(reply, "variables failed"));
      return reply.list;
    });
  }

  interrupt(): void {
    if (!this.streamed) return;
    this.runner.signal("SIGINT");
    // The first signal can land before the runner has marked the cell as running, and an idle runner
    // ignores SIGINT; repeating it until the cell ends closes that window.
    this.interruptRepeat ??= setInterval(() => {
      if (this.streamed) this.runner.signal("SIGINT");
    }, INTERRUPT_REPEAT_MS);
  }

  shutdown(): Promise<void> {
    if (this.shutdownDone) return this.shutdownDone;
    this.closed = true;
    const runner = this.runner;
    this.shutdownDone = (async () => {
      if (!runner) return;
      runner.send({ type: "shutdown" });
      const timer = setTimeout(() => runner.kill(), SHUTDOWN_GRACE_MS);
      await runner.exited;
      clearTimeout(timer);
    })();
    return this.shutdownDone;
  }

  private async runCell(code: string, limit: CellLimit): Promise<CellResult> {
    const { timeoutMs, reason } = limit;
    if (this.closed) throw new KernelClosedError();
    const started = performance.now();
    let runner: RunnerProcess;
    try {
      runner = await this.live();
    } catch (e) {
      const note = `The kernel could not be restarted: ${messageOf(e)}`;
      const result = withNote(this.failed(started, note), this.pendingNote);
      this.pendingNote = null;
      this.reported.add(this.runner);
      return result;
    }
    const earlier = this.pendingNote;
    this.pendingNote = null;
    const streamed: string[] = [];
    this.streamed = streamed;
    let phase: Phase = "running";
    let grace: NodeJS.Timeout | undefined;
    const timer = longTimeout(() => {
      phase = "interrupted";
      // Repeated until the cell ends: a short timeout can fire before the runner marks the cell running.
      this.interrupt();
      grace = setTimeout(() => {
        phase = "killed";
        runner.kill();
      }, limit.graceMs);
    }, timeoutMs);
    let reply: ResultMessage | null = null;
    let exit: RunnerExit | null = null;
    try {
      reply = (await runner.request({
        type: "execute",
        code,
        cap: this.options.outputCap ?? DEFAULT_OUTPUT_CAP,
        ...(limit.writeGate && { gate: limit.writeGate.file, tree: limit.writeGate.tree }),
      })) as ResultMessage;
    } catch (e) {
      if (!(e instanceof RunnerExitedError)) throw e;
      exit = e.exit;
    } finally {
      timer.clear();
      clearTimeout(grace);
      clearInterval(this.interruptRepeat);
      this.interruptRepeat = undefined;
      this.streamed = null;
    }
    if (reply) {
      this.nextCount = reply.count + 1;
      const files = this.files(runner);
      if (files && reply.path) reply.path = await files.fullOutput(reply.path, this.outputDir);
      const result = toCellResult(reply, performance.now() - started);
      // The cell may have swallowed the interrupt (e.g. `%%bash`); it still ran into its timeout.
      if (phase !== "running") {
        result.status = "timeout";
        result.note = `The cell was interrupted after ${seconds(timeoutMs)} (${reason}); the kernel and its variables are intact.`;
      }
      return withNote(result, earlier);
    }
    this.reported.add(runner);
    const count = this.nextCount++;
    const output = streamed.join("");
    let note: string;
    if (this.closed) {
      note = "The kernel was shut down while this cell ran.";
    } else if (phase === "running" && this.options.restartAfterCrash === false) {
      // Restarted by live() if the kernel is used again.
      note = `The kernel process died during this cell (${this.why(runner, exit!)}). ${LOST}`;
    } else {
      note =
        phase === "running"
          ? `The kernel process died during this cell (${this.why(runner, exit!)}) and was restarted. ${LOST}`
          : `The cell was still running ${seconds(timeoutMs)} after it started (${reason}) and did not stop ` +
            `when interrupted; the kernel was killed and restarted. ${LOST}`;
      try {
        await this.restart(phase === "running" ? `died during a cell (${this.why(runner, exit!)})` : reason);
      } catch (e) {
        note += ` Restarting it failed: ${messageOf(e)}`;
      }
    }
    const status: CellResult["status"] = phase === "running" ? "crashed" : "timeout";
    const result = { ...this.failed(started, note), executionCount: count, status, output };
    return withNote({ ...result, outputChars: output.length }, earlier);
  }

  /** A cell that gave no result (the kernel died or could not be restarted), and why. */
  private failed(started: number, note: string): CellResult {
    return {
      executionCount: this.nextCount,
      status: "crashed",
      output: "",
      outputChars: 0,
      truncated: false,
      images: [],
      note,
      durationMs: performance.now() - started,
    };
  }

  /** Runs one kernel operation at a time, in call order. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => {});
    return run;
  }

  /**
   * The current runner, restarted first if it died while idle (a death during a cell is handled,
   * and the kernel restarted, by runCell itself).
   */
  private async live(): Promise<RunnerProcess> {
    if (this.closed) throw new KernelClosedError();
    const exit = this.runner.exit;
    if (!exit) return this.runner;
    if (!this.reported.has(this.runner)) {
      this.pendingNote = `The kernel process died between cells (${this.why(this.runner, exit)}) and was restarted. ${LOST}`;
    }
    await this.restart(`died while idle (${this.why(this.runner, exit)})`);
    return this.runner;
  }

  /** How `runner` ended: its exit, and what its launcher's target said about it (a cancelled Slurm step). */
  private why(runner: RunnerProcess, exit: RunnerExit): string {
    const said = (this.options.launcher ?? LOCAL).explainExit?.(runner.stderrTail, exit);
    return said ? `${describeExit(exit)}: ${said}` : describeExit(exit);
  }

  private async restart(reason: string): Promise<void> {
    const old = this.runner;
    old.kill();
    await old.exited;
    this.runner = await this.spawn();
    this.emit({ type: "restarted", pid: this.runner.pid, reason });
  }

  private async spawn(signal?: AbortSignal): Promise<RunnerProcess> {
    const t0 = performance.now();
    const launcher = this.options.launcher ?? LOCAL;
    // Only the plain local launcher forks: there is no template on the other side of the others.
    const template = launcher.forkable ? this.options.template : undefined;
    const { runner, forkedFrom, fallback } = await startRunner(template, this.interpreter, {
      launcher,
      python: this.interpreter.path,
      cwd: this.options.cwd,
      env: this.env,
      outputDir: this.outputDir,
      firstCount: this.nextCount,
      ...(signal && { signal }),
      onStream: (_id, text) => {
        if (!this.streamed) return;
        this.streamed.push(text);
        this.options.onOutput?.(text);
      },
      onRequest: (id, method, params, from) => this.answer(from, id, method, params),
      onQueued: (said) => this.emit({ type: "queued", said }),
    });
    if (this.closed) {
      runner.kill();
      await runner.exited;
      throw new KernelClosedError();
    }
    void runner.exited.then((exit) => this.exited(runner, exit));
    const { warnings, shadowed } = skillReport(runner.ready, this.env);
    this.emit({
      type: "started",
      pid: runner.pid,
      python: this.pythonOf(runner),
      startMs: performance.now() - t0,
      ...(forkedFrom !== undefined ? { forkedFrom } : {}),
      ...(fallback !== undefined ? { fallback } : {}),
      ...(launcher !== LOCAL ? { launcher: launcher.uri } : {}),
      ...(warnings ? { warnings } : {}),
      ...(shadowed.length > 0 ? { unusedSkillDirs: shadowed } : {}),
    });
    return runner;
  }

  private exited(runner: RunnerProcess, exit: RunnerExit): void {
    if (this.closed || runner !== this.runner) return;
    this.emit({
      type: "died",
      pid: runner.pid,
      code: exit.code,
      signal: exit.signal,
      stderr: runner.stderrTail,
    });
  }

  private answer(runner: RunnerProcess, id: number, method: string, params: unknown): void {
    const handler = this.options.onHostRequest;
    if (!handler) {
      runner.send({ type: "response", id, error: `this kernel's host does not handle "${method}"` });
      return;
    }
    const files = this.files(runner); // pickles named in the request or its answer cross the pipe
    Promise.resolve()
      .then(async () => (files ? files.inbound(params) : params))
      .then((local) => handler(method, local, runner.goneSignal))
      .then((result) => (files ? files.outbound(result) : result))
      .then(
        (result) => runner.send({ type: "response", id, result: result ?? null }),
        (e: unknown) => runner.send({ type: "response", id, error: hostErrorPayload(e) }),
      );
  }

  /** How files reach `runner` when it shares no disk with this machine (remote-files.ts). */
  private files(runner: RunnerProcess): RemoteFiles | undefined {
    return runner.remote ? RemoteFiles.of(runner, this.outputDir) : undefined;
  }

  private pythonOf(runner: RunnerProcess): PythonInfo {
    return { path: this.interpreter.path, version: runner.ready.python, ipython: runner.ready.ipython };
  }

  private emit(event: KernelLifecycleEvent): void {
    try {
      this.options.onLifecycle?.(event);
    } catch {
      // a listener's bug must not break the kernel
    }
  }
}

function toCellResult(msg: ResultMessage, durationMs: number): CellResult {
  const result: CellResult = {
    executionCount: msg.count,
    status: msg.status,
    output: msg.output,
    outputChars: msg.chars,
    truncated: msg.truncated ?? false,
    images: msg.images ? msg.images.map((data) => ({ mimeType: "image/png", data })) : [],
    durationMs,
  };
  if (msg.path) result.fullOutputPath = msg.path;
  if (typeof msg.lines === "number") result.outputLines = msg.lines;
  if (msg.error) result.error = msg.error;
  if (typeof msg.shell_exit === "number") result.shellExitCode = msg.shell_exit;
  return result;
}

function withNote(result: CellResult, earlier: string | null): CellResult {
  if (earlier) result.note = result.note ? `${earlier} ${result.note}` : earlier;
  return result;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function errorOf(reply: { error?: unknown }, fallback: string): string {
  return typeof reply.error === "string" ? reply.error : fallback;
}

/** A host error as Python sees it: the message, plus a code (e.g. "budget") it can map to an exception. */
function hostErrorPayload(e: unknown): string | { message: string; code: string } {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? { message: messageOf(e), code } : messageOf(e);
}
