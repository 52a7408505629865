import { findPython, startKernel } from "../kernel/index.js";
import type { CellResult, Kernel, KernelLifecycleEvent, PythonInfo } from "../kernel/types.js";
import type { Message, ModelClient } from "../llm/types.js";
import { Journal, newSessionId, sessionDir } from "../session/index.js";
import type { JournalBody, JournalEvent } from "../session/types.js";
import { Budget, type BudgetLimits } from "./budget.js";
import type { AgentEvent, EventSink } from "./events.js";
import { type LoopContext, runTurn, type TurnOutcome } from "./loop.js";
import { buildSystemPrompt, findAgentsMd } from "./prompt.js";
import { describeVariable, renderVariableLine, type VariableSpec } from "./variables.js";

export interface KernelSettings {
  /** Environment the kernel is started from; it is scrubbed of secrets first. */
  env: NodeJS.ProcessEnv;
  passEnv: string[];
  cellTimeoutMs: number;
  outputCap: number;
  /** Where interpreter discovery caches its result. */
  cacheDir: string;
}

export interface SessionOptions {
  client: ModelClient;
  home: string;
  cwd: string;
  title: string;
  variables: VariableSpec[];
  limits: BudgetLimits;
  kernel: KernelSettings;
  /** Exact values never to write to the journal or show the model (API keys). */
  secrets: string[];
  relmVersion: string;
  sink?: EventSink;
  now?: () => Date;
}

/**
 * A conversation with one model and one kernel, journaled. The kernel starts while the first model
 * request is in flight and is awaited only when the first cell needs it.
 */
export class AgentSession {
  readonly id: string;
  readonly dir: string;
  readonly journal: Journal;
  readonly python: PythonInfo;
  private readonly messages: Message[] = [];
  private readonly budget: Budget;
  private readonly sink: EventSink;
  private readonly kernelReady: Promise<Kernel>;
  private readonly system: string;
  private turnCounter = 0;
  private submission: { value: unknown } | undefined;
  private abort = new AbortController();
  private liveKernel: Kernel | undefined;
  private closed = false;

  private constructor(
    private readonly options: SessionOptions,
    python: PythonInfo,
  ) {
    this.python = python;
    this.sink = options.sink ?? (() => {});
    this.budget = new Budget(options.limits);
    this.id = newSessionId();
    this.dir = sessionDir(options.home, this.id);
    const now = (options.now ?? (() => new Date()))();
    this.journal = Journal.create(
      this.dir,
      {
        id: this.id,
        created: now.toISOString(),
        cwd: options.cwd,
        title: options.title,
        provider: options.client.provider,
        model: options.client.model,
        relm: options.relmVersion,
      },
      { secrets: options.secrets },
    );

    this.emit({
      type: "session",
      id: this.id,
      dir: this.dir,
      title: options.title,
      provider: options.client.provider,
      model: options.client.model,
    });
    const described = options.variables.map((spec) => describeVariable(spec));
    for (const v of described) {
      this.record({ type: "variable", name: v.name, varType: v.type, size: v.size, preview: v.preview });
    }
    this.system = buildSystemPrompt(
      {
        cwd: options.cwd,
        date: now.toISOString().slice(0, 10),
        platform: `${process.platform} ${process.arch}`,
        pythonVersion: python.version,
        ipythonVersion: python.ipython,
        variables: described.map(renderVariableLine),
      },
      findAgentsMd(options.cwd),
    );
    this.kernelReady = this.bootKernel();
    // Surfaced when a cell needs the kernel; until then a failed start must not crash the process.
    this.kernelReady.catch(() => {});
  }

  static async create(options: SessionOptions): Promise<AgentSession> {
    const python = await findPython(options.kernel.env, options.kernel.cacheDir);
    return new AgentSession(options, python);
  }

  get systemPrompt(): string {
    return this.system;
  }

  spent() {
    return this.budget.spent();
  }

  /** Runs one user turn to its end. Never throws for model or cell failures: they are outcomes. */
  async run(userText: string): Promise<TurnOutcome> {
    if (this.closed) throw new Error("session is closed");
    this.abort = new AbortController();
    const ctx: LoopContext = {
      client: this.options.client,
      system: this.system,
      messages: this.messages,
      budget: this.budget,
      sink: this.sink,
      abort: this.abort,
      record: (body) => this.record(body),
      runCell: (turn, callId, code) => this.runCell(turn, callId, code),
      takeSubmission: () => {
        const s = this.submission;
        this.submission = undefined;
        return s;
      },
      nextTurnNumber: () => ++this.turnCounter,
    };
    try {
      return await runTurn(ctx, userText);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.record({ type: "error", message });
      return { status: "error", message };
    }
  }

  /** Stops the model stream and interrupts the running cell; the turn ends as "interrupted". */
  interrupt(): void {
    this.abort.abort();
    this.liveKernel?.interrupt();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const kernel = await this.kernelReady.catch(() => undefined);
    await kernel?.shutdown();
    this.journal.sync();
    this.journal.close();
  }

  private record(body: JournalBody): JournalEvent {
    const event = this.journal.append(body);
    this.emit(event);
    return event;
  }

  private emit(event: AgentEvent): void {
    try {
      this.sink(event);
    } catch {
      // A broken front end must not stop the agent; the journal already has the event.
    }
  }

  private async bootKernel(): Promise<Kernel> {
    const { kernel: k, cwd } = this.options;
    const kernel = await startKernel({
      cwd,
      env: k.env,
      passEnv: k.passEnv,
      python: this.python,
      cellTimeoutMs: k.cellTimeoutMs,
      outputCap: k.outputCap,
      outputDir: this.journal.outputsDir,
      onOutput: (text) => this.emit({ type: "cell_output_delta", callId: this.currentCallId ?? "", text }),
      onHostRequest: (method, params) => this.handleHostRequest(method, params),
      onLifecycle: (event) => this.onKernelLifecycle(event),
    });
    this.liveKernel = kernel;
    await this.loadVariables(kernel);
    this.pendingReload = false;
    return kernel;
  }

  private currentCallId: string | undefined;

  private async loadVariables(kernel: Kernel): Promise<void> {
    for (const spec of this.options.variables) await kernel.setVariable(spec.name, spec.source);
  }

  private onKernelLifecycle(event: KernelLifecycleEvent): void {
    if (event.type === "started") {
      this.record({
        type: "kernel",
        event: "started",
        pid: event.pid,
        detail: `python ${event.python.version}`,
      });
    } else if (event.type === "died") {
      this.record({
        type: "kernel",
        event: "died",
        pid: event.pid,
        detail: `code ${event.code} signal ${event.signal}`,
      });
    } else {
      this.record({ type: "kernel", event: "restarted", pid: event.pid, detail: event.reason });
      this.pendingReload = true;
    }
  }

  private pendingReload = false;

  private async handleHostRequest(method: string, params: unknown): Promise<unknown> {
    if (method === "submit") {
      const value = (params as { value?: unknown } | null)?.value;
      this.record({ type: "submit", value });
      this.submission = { value };
      return null;
    }
    throw new Error(`unknown host method "${method}"`);
  }

  private async runCell(turn: number, callId: string, code: string): Promise<CellResult> {
    const kernel = await this.kernelReady;
    if (this.abort.signal.aborted) {
      // Interrupted while the kernel was still starting: the cell never ran.
      const skipped: CellResult = {
        executionCount: 0,
        status: "error",
        output: "",
        outputChars: 0,
        truncated: false,
        images: [],
        note: "Not run: the user interrupted the turn.",
        durationMs: 0,
      };
      this.recordCell(turn, callId, skipped);
      return skipped;
    }
    this.currentCallId = callId;
    let result: CellResult;
    try {
      result = await kernel.execute(code);
    } finally {
      this.currentCallId = undefined;
    }
    result = { ...result, output: this.journal.redact(result.output) };
    if (this.pendingReload) {
      // A restarted kernel lost the user's --var inputs; put them back so the model can carry on.
      this.pendingReload = false;
      const names = this.options.variables.map((v) => v.name);
      if (names.length > 0) {
        await this.loadVariables(kernel);
        result.note = `${result.note ?? "The kernel was restarted."} The inputs ${names.join(", ")} were loaded again.`;
      }
    }
    this.recordCell(turn, callId, result);
    return result;
  }

  private recordCell(turn: number, callId: string, result: CellResult): void {
    const imageFiles = result.images.map((image, i) =>
      this.journal.writeOutputFile(
        `cell-${result.executionCount}-${i}.png`,
        Buffer.from(image.data, "base64"),
      ),
    );
    this.record({
      type: "cell_output",
      turn,
      callId,
      executionCount: result.executionCount,
      status: result.status,
      output: result.output,
      outputChars: result.outputChars,
      truncated: result.truncated,
      fullOutputFile: result.fullOutputPath ? this.journal.relativePath(result.fullOutputPath) : undefined,
      imageFiles,
      error: result.error,
      note: result.note,
      durationMs: result.durationMs,
    });
  }
}
