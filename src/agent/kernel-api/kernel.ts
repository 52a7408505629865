import { rmSync } from "node:fs";
import { join } from "node:path";
import type { PermissionMode } from "../../config/permission-mode.js";
import { describeExit, KernelRequestError, startKernel } from "../../kernel/index.js";
import type {
  CellImage,
  CellResult,
  Kernel,
  KernelLifecycleEvent,
  SnapshotReport,
} from "../../kernel/types.js";
import type { JournalBodyOf } from "../../session/types.js";
import { cellLimit } from "../budget/deadline.js";
import type { Conversation } from "../core/conversation.js";
import type { AgentLog } from "../core/log.js";
import type { AgentTree } from "../core/tree.js";
import { IMAGE_EXTENSIONS } from "../core/user-images.js";
import type { VariableSpec } from "../core/variables.js";
import { handleKernelCall, type KernelCallsAgent } from "./calls.js";
import { kernelTarget } from "./kernel-target.js";
import { savedInBackground } from "./unsaved.js";

/** What the kernel of an agent needs from the agent (its calls from Python are answered for it: calls.ts). */
interface KernelOwner extends KernelCallsAgent {
  readonly tree: AgentTree;
  readonly depth: number;
  readonly dir: string;
  /** Its journal (cells, kernel events, snapshots) and the front end's stream (live cell output). */
  readonly log: Pick<AgentLog, "journal" | "record" | "emit">;
  readonly variables: VariableSpec[];
  /** A child fails fast when its kernel dies (its parent decides); the root restarts and goes on. */
  readonly failOnCrash: boolean;
  /** Where its kernel runs: a kernel URI (kernel-target.ts); undefined: the tree's own launcher. */
  readonly kernelUri?: string;
  /** Its permission mode: its kernel starts in that mode's sandbox (none in full mode). */
  readonly mode: PermissionMode;
  /** The agent has ended; its running turn was interrupted (agent.ts, turns.ts). */
  readonly state: { readonly closed: boolean; readonly aborted: boolean };
  /** Told when the kernel (re)started and reported its Python (whether it has IPython): the system prompt says it. */
  readonly conversation: Pick<Conversation, "turn" | "kernelStarted">;
}

/** The variables a restarted kernel got back from the snapshot, and those it did not (with why). */
export type RestoredVariables = Pick<JournalBodyOf<"resumed">, "restored" | "notRestored">;

/** What a status line shows about an agent's kernel. */
export type KernelState = "starting" | "idle" | "busy" | "restarting" | "stopped";

/** Thrown inside a child's turn when its kernel dies. */
class KernelCrashError extends Error {}

/**
 * An agent's kernel over its life: started on first use (while the first model call is in flight),
 * its cells journaled, its variables snapshotted after each cell (root agent), released when idle and
 * restored on the next cell, restarted after a crash with the agent's inputs loaded again.
 */
export class AgentKernel {
  /** The kernel, booting or live; undefined before the first boot and after release(). */
  private kernelReady: Promise<Kernel> | undefined;
  private liveKernel: Kernel | undefined;
  private currentCallId: string | undefined;
  private pendingReload = false;
  private booting = false;
  private executing = false;
  private dead = false;

  /** Images look() attached during the running cell; they join its result (look.ts). */
  private attached: CellImage[] = [];

  /** Set before a cell while the session's first checkpoint is being taken (checkpoints.ts). */
  writeGate: { file: string; tree: string } | undefined;
  /** The kernel runs on this machine's files (local or sandboxed), so the write gate reaches it. */
  private sharesFiles = true;
  /** Settles once boot() knows where the kernel runs (before it starts: the first checkpoint need not wait). */
  private placed: Promise<unknown> | undefined;

  /** Whether the kernel runs on this machine's files: known as soon as its target is, not its start. */
  async sharesFilesWithHost(): Promise<boolean> {
    if (!this.placed) void this.ensure(); // the cell about to run needs it anyway; boot() places it first
    await this.placed?.catch(() => undefined);
    return this.sharesFiles;
  }

  constructor(private readonly owner: KernelOwner) {}

  /** An image for the result of the cell running now; false when it has 8 already. */
  attachImage(image: CellImage): boolean {
    if (this.attached.length >= 8) return false;
    this.attached.push(image);
    return true;
  }

  /** Cancels a start still under way when the agent closes (close()). */
  private bootAbort: AbortController | undefined;

  /** Starts the kernel if there is none (first use, or after release()). */
  ensure(): Promise<Kernel> {
    if (!this.kernelReady) {
      this.booting = true;
      this.bootAbort = new AbortController();
      const ready = this.boot(this.bootAbort.signal);
      this.kernelReady = ready;
      const booted = () => {
        if (this.kernelReady === ready) this.booting = false;
      };
      // Surfaced when a cell needs the kernel; until then a failed start must not crash the process.
      void ready.then(booted, booted);
    }
    return this.kernelReady;
  }

  /**
   * A resumed session: starts the kernel with the last snapshot restored into it and says what came
   * back (nothing when the kernel cannot start; the next cell says why).
   */
  async restoreSnapshot(): Promise<RestoredVariables> {
    this.restoreOnBoot = true;
    await this.ensure().catch(() => undefined);
    const r = this.restored;
    this.restored = undefined;
    return r ?? { restored: [], notRestored: [] };
  }

  /** Where the kernel is in its life, for a status line. */
  get state(): KernelState {
    if (this.owner.state.closed || !this.kernelReady) return "stopped";
    if (this.booting) return "starting";
    if (this.dead) return this.executing ? "restarting" : "stopped";
    return this.executing ? "busy" : "idle";
  }

  interrupt(): void {
    this.liveKernel?.interrupt();
  }

  /**
   * A variable a person sent: kept with the agent's inputs (so a restarted kernel loads it again) and
   * set in the kernel now when one runs; otherwise the next kernel to boot loads it.
   */
  async addVariable(spec: VariableSpec): Promise<void> {
    const inputs = this.owner.variables;
    const same = inputs.findIndex((v) => v.name === spec.name);
    if (same >= 0) inputs.splice(same, 1);
    inputs.push(spec);
    if (!this.kernelReady) return;
    const kernel = await this.kernelReady;
    await kernel.setVariable(spec.name, spec.source);
  }

  /** Names of the user's variables in the live kernel (none when it is not running). */
  async variableNames(): Promise<string[]> {
    if (!this.liveKernel) return [];
    return (await this.liveKernel.variables().catch(() => [])).map((v) => v.name);
  }

  /**
   * Waits for pending snapshots, takes the last cell's one if the next cell always came first (a fast
   * loop gives every snapshot up), and stops the kernel (also one whose boot failed half-way).
   */
  async close(): Promise<void> {
    // The session's own kernel still starting has run no cell and holds nothing: it is stopped where it
    // is, so a plain answer (the kernel is started while the first model call is out) does not wait for
    // an interpreter. (Children's kernels, forked from the template, are waited for: a sub-agent runs code.)
    if (this.booting && this.owner.depth === 0) this.bootAbort?.abort();
    await this.kernelReady?.catch(() => undefined);
    await this.snapshotting;
    // A large variable still being written in the background counts as not saved: the final round
    // waits for its writer (or writes it), before the kernel and the writer with it are stopped.
    if ((this.snapshotStale || this.largePending) && this.liveKernel)
      await this.liveKernel.snapshot(this.snapshotDir, { final: true }).catch(() => {});
    await this.liveKernel?.shutdown();
  }

  private async boot(signal: AbortSignal): Promise<Kernel> {
    const { tree, mode } = this.owner;
    const k = tree.options.kernel;
    const placing = kernelTarget(this.owner.kernelUri, () => tree.kernelLauncher(mode));
    this.placed = placing;
    const target = await placing;
    const launcher = target.launcher; // a remote one, the sandbox of its mode, or none (local)
    // The first checkpoint's gate is a file on this machine: a kernel elsewhere (ssh, Slurm, a container
    // whose root is an overlay of this one) cannot see it go, so its cells are not held by it.
    this.sharesFiles = !launcher || launcher.transport === "local";
    // The template runs in the root's mode's sandbox: a child of a narrower mode is spawned in its own.
    const forked = target.forkable && mode === tree.permissions.mode;
    const template = forked ? await untilAborted(this.owner.tree.kernelTemplate(), signal) : undefined;
    const kernel = await startKernel({
      template,
      ...(launcher ? { launcher } : {}),
      cwd: this.owner.tree.options.cwd,
      env: k.env,
      passEnv: k.passEnv,
      python: this.owner.tree.python,
      cellTimeoutMs: k.cellTimeoutMs,
      // A child fails when its kernel dies: no restart (a new Slurm job, say) before it says so.
      restartAfterCrash: !this.owner.failOnCrash,
      outputCap: k.outputCap,
      ...(k.snapshotCaps && { snapshotCaps: k.snapshotCaps }),
      outputDir: this.owner.log.journal.outputsDir,
      secrets: this.owner.tree.options.secrets,
      onOutput: (text) =>
        this.owner.log.emit({ type: "cell_output_delta", callId: this.currentCallId ?? "", text }),
      onHostRequest: (method, params, gone) => handleKernelCall(this.owner, method, params, gone),
      onLifecycle: (event) => this.onLifecycle(event),
      startSignal: signal,
    });
    this.liveKernel = kernel;
    await this.loadVariables(kernel);
    this.pendingReload = false;
    if (this.restoreOnBoot) {
      this.restoreOnBoot = false;
      const report = await kernel.restore(this.snapshotDir);
      this.restored = {
        restored: report.restored.map((v) => v.name),
        notRestored: [...report.failed, ...report.skipped],
      };
    }
    return kernel;
  }

  /** Where the root agent's variables are pickled after each cell (see python/relm/snapshot.py). */
  get snapshotDir(): string {
    return join(this.owner.dir, "snapshot");
  }

  private restoreOnBoot = false;
  /** What the last restore brought back, for the next note to the model. */
  private restored: RestoredVariables | undefined;
  private snapshotting: Promise<void> = Promise.resolve();
  /** A cell ended while a snapshot was under way: take one more when it is done. */
  private snapshotWanted = false;
  private snapshotRunning = false;
  /** A cell ended after the last snapshot that completed. */
  private snapshotStale = false;

  /**
   * Pickles the variables after a cell (root agent only: it is the one a new host resumes). The kernel
   * does it while the model is asked for the next step, and gives it up when the next cell comes first;
   * cells that end meanwhile are covered by one more snapshot, not one each.
   */
  private snapshotAfterCell(kernel: Kernel): void {
    if (this.owner.depth !== 0) return;
    this.snapshotWanted = true;
    this.snapshotStale = true;
    if (this.snapshotRunning) return;
    this.snapshotRunning = true;
    this.snapshotting = (async () => {
      while (this.snapshotWanted && !this.owner.state.closed) {
        this.snapshotWanted = false;
        try {
          const report = await kernel.snapshot(this.snapshotDir);
          if (!report.superseded && !this.snapshotWanted) this.snapshotStale = false;
          if (!report.superseded && !this.owner.state.closed) this.recordSnapshot(report);
        } catch {
          // A kernel that died meanwhile has nothing to save; the previous snapshot stays.
        }
      }
      this.snapshotRunning = false;
    })();
  }

  /** The last snapshot left a large variable to its background writer (python/relm/bigvars.py). */
  private largePending = false;

  private recordSnapshot(report: SnapshotReport): void {
    this.largePending = report.skipped.some((s) => savedInBackground(s.reason));
    this.owner.log.record({
      type: "snapshot",
      saved: report.saved.length,
      skipped: report.skipped,
      bytes: report.bytes,
    });
  }

  /**
   * Frees the kernel of an idle session: its variables are snapshotted, the process exits, and the
   * next cell starts a new kernel that loads them back.
   */
  async release(): Promise<void> {
    const booting = this.kernelReady;
    if (!booting) return;
    const kernel = await booting.catch(() => undefined);
    if (kernel) {
      await this.snapshotting;
      if (this.owner.depth === 0) {
        const report = await kernel.snapshot(this.snapshotDir, { final: true }).catch(() => undefined);
        // Journaled: what will not be there when the kernel comes back (a variable too large, a secret).
        if (report && !report.superseded) this.recordSnapshot(report);
      }
      await kernel.shutdown();
    }
    this.kernelReady = undefined;
    this.liveKernel = undefined;
    this.booting = false;
    this.restoreOnBoot = true;
  }

  private async loadVariables(kernel: Kernel): Promise<void> {
    for (const spec of [...this.owner.variables]) {
      try {
        await kernel.setVariable(spec.name, spec.source);
      } catch (error) {
        // One input that cannot be loaded again (its file removed, say) must not fail every cell from
        // now on: it is dropped, journaled, and the model told with the next cell's result.
        if (!(error instanceof KernelRequestError)) throw error;
        this.owner.variables.splice(this.owner.variables.indexOf(spec), 1);
        const lost = `${spec.name} could not be loaded again (${error.message})`;
        this.lostInputs.push(lost);
        this.owner.log.record({ type: "warning", message: `the variable ${lost}` });
        continue;
      }
      if (spec.consume && "pickle" in spec.source) rmSync(spec.source.pickle, { force: true });
    }
  }

  /** Inputs a restarted kernel could not load again, for the next cell's note to the model. */
  private lostInputs: string[] = [];

  private onLifecycle(event: KernelLifecycleEvent): void {
    if (this.owner.state.closed) return;
    if (event.type === "queued") {
      // Said, or a kernel waiting in a cluster's queue looks like relm hanging. A sub-agent's too (in its
      // own journal, shown under its name): a child whose kernel waits looked like a child that hangs.
      // Once per start, as srun says it; a map of many queued children says it once for each.
      this.owner.log.record({ type: "warning", message: `the kernel waits in the queue: ${event.said}` });
      return;
    }
    this.dead = event.type === "died";
    this.owner.log.record({
      type: "kernel",
      event: event.type,
      pid: event.pid,
      detail: lifecycleDetail(event),
    });
    if (event.type === "started") {
      this.owner.conversation.kernelStarted(event.python, event.unusedSkillDirs ?? []);
      this.warnOnce(event.warnings ?? []);
    } else if (event.type === "restarted") this.pendingReload = true;
  }

  /** What kernel starts said to warn the person about, each once (a restart says it again). */
  private warned = new Set<string>();

  /** The root's kernel warns (a sub-agent's kernel has the same skills: it would say the same). */
  private warnOnce(warnings: readonly string[]): void {
    if (this.owner.depth > 0) return;
    for (const message of warnings) {
      if (this.warned.has(message)) continue;
      this.warned.add(message);
      this.owner.log.record({ type: "warning", message });
    }
  }

  /** Runs a cell; `deadline` (epoch ms): the time budget's end, where the cell is interrupted. */
  async runCell(turn: number, callId: string, code: string, deadline?: number): Promise<CellResult> {
    let kernel: Kernel;
    try {
      kernel = await this.ensure();
    } catch (error) {
      // The cell never ran: journaled so, or a resume would say it may have run partly. The turn still
      // ends on the error, as before.
      this.recordCell(
        turn,
        callId,
        notRun(`Not run: the kernel could not start (${(error as Error).message})`),
      );
      throw error;
    }
    if (this.owner.state.aborted || (deadline !== undefined && Date.now() >= deadline)) {
      // Interrupted, or out of time, while the kernel was still starting: the cell never ran.
      const skipped = notRun(
        this.owner.state.aborted ? "Not run: the turn was interrupted." : "Not run: the time budget ran out.",
      );
      this.recordCell(turn, callId, skipped);
      return skipped;
    }
    // Died between cells: it is started again on its next use. The inputs must be back before the cell
    // runs (which reads them), not after it.
    const reloadFirst = this.dead && !this.owner.failOnCrash && this.owner.variables.length > 0;
    if (reloadFirst) await this.loadVariables(kernel);
    this.currentCallId = callId;
    this.executing = true;
    let result: CellResult;
    try {
      const limit = cellLimit(deadline, this.owner.tree.options.kernel.cellTimeoutMs);
      const gate = this.sharesFiles ? this.writeGate : undefined;
      result = await kernel.execute(code, gate ? { ...limit, writeGate: gate } : limit);
    } finally {
      this.currentCallId = undefined;
      this.executing = false;
    }
    if (this.attached.length > 0)
      result = { ...result, images: [...result.images, ...this.attached.splice(0)] };
    result = { ...result, output: this.owner.log.journal.redact(result.output) };
    if (result.status === "crashed" && this.owner.failOnCrash) {
      this.recordCell(turn, callId, result);
      throw new KernelCrashError(`its kernel died during a cell: ${result.note ?? "no detail"}`);
    }
    if (this.pendingReload) {
      // A restarted kernel lost the user's --var inputs; put them back so the model can carry on.
      this.pendingReload = false;
      if (!reloadFirst && this.owner.variables.length > 0) await this.loadVariables(kernel);
      // Named after loading: one that could not be loaded again is told apart (lostInputs).
      const names = this.owner.variables.map((v) => v.name);
      if (names.length > 0) {
        result.note = `${result.note ?? "The kernel was restarted."} The inputs ${names.join(", ")} were loaded again.`;
      }
    }
    if (this.restored && this.restored.notRestored.length > 0) {
      const lost = this.restored.notRestored.map((v) => `${v.name} (${v.reason})`).join(", ");
      result.note = `${result.note ? `${result.note} ` : ""}The kernel was restarted and its variables restored from a snapshot, except: ${lost}.`;
    }
    this.restored = undefined;
    if (this.lostInputs.length > 0) {
      const lost = this.lostInputs.splice(0).join("; ");
      result.note = `${result.note ? `${result.note} ` : ""}The variable ${lost}.`;
    }
    this.recordCell(turn, callId, result);
    this.snapshotAfterCell(kernel);
    return result;
  }

  private recordCell(turn: number, callId: string, result: CellResult): void {
    const imageFiles = result.images.map((image, i) =>
      this.owner.log.journal.writeOutputFile(
        `cell-${result.executionCount}-${i}.${IMAGE_EXTENSIONS[image.mimeType]}`,
        Buffer.from(image.data, "base64"),
      ),
    );
    this.owner.log.record({
      type: "cell_output",
      turn,
      callId,
      executionCount: result.executionCount,
      status: result.status,
      output: result.output,
      outputChars: result.outputChars,
      truncated: result.truncated,
      outputLines: result.outputLines,
      fullOutputFile: result.fullOutputPath
        ? this.owner.log.journal.relativePath(result.fullOutputPath)
        : undefined,
      imageFiles,
      error: result.error,
      exitCode: result.shellExitCode,
      note: result.note,
      durationMs: result.durationMs,
    });
  }
}

/** What the journal's `kernel` event says of a start (Python, how it started), a death or a restart. */
function lifecycleDetail(event: Exclude<KernelLifecycleEvent, { type: "queued" }>): string {
  if (event.type === "died") return describeExit(event);
  if (event.type === "restarted") return event.reason;
  const how = event.forkedFrom
    ? `, forked from template ${event.forkedFrom}`
    : event.fallback
      ? `, spawned (${event.fallback})`
      : "";
  const ipython = event.python.ipython ? `, IPython ${event.python.ipython}` : " without IPython";
  return `python ${event.python.version}${ipython}${how}${event.launcher ? ` via ${event.launcher}` : ""}`;
}

function notRun(note: string): CellResult {
  return {
    executionCount: 0,
    status: "error",
    output: "",
    outputChars: 0,
    truncated: false,
    images: [],
    note,
    durationMs: 0,
  };
}

/** `pending`'s value, or a rejection as soon as `signal` is aborted (the session closed, a turn was interrupted). */
export function untilAborted<T>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error("the kernel's start was cancelled"));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error("the kernel's start was cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
