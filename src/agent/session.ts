import { rmSync } from "node:fs";
import { findPython, startKernel } from "../kernel/index.js";
import type { CellResult, Kernel, KernelLifecycleEvent } from "../kernel/types.js";
import type { Message, ModelClient } from "../llm/types.js";
import { Journal, newSessionId, sessionDir } from "../session/index.js";
import type { JournalBody, JournalEvent, SpendRecord } from "../session/types.js";
import { Budget, type BudgetLimits } from "./budget.js";
import { type ChildAgent, ChildManager, type ChildParams, type SubmitPayload } from "./children.js";
import type { AgentEvent, EventSink } from "./events.js";
import { handleHostRequest } from "./host-api.js";
import { type LoopContext, runTurn, type TurnOutcome } from "./loop.js";
import { buildSystemPrompt } from "./prompt.js";
import type { AgentSpec } from "./specs.js";
import { AgentTree, type KernelSettings, type TreeOptions } from "./tree.js";
import { describeVariable, renderVariableLine, type VariableSpec } from "./variables.js";

export type { KernelSettings };

export interface SessionOptions extends TreeOptions {
  title: string;
  variables: VariableSpec[];
  limits: BudgetLimits;
}

interface AgentParams {
  id: string;
  dir: string;
  title: string;
  depth: number;
  parentId?: string;
  client: ModelClient;
  budget: Budget;
  variables: VariableSpec[];
  sink: EventSink;
  spec?: AgentSpec;
}

/** Thrown inside a child's turn when its kernel dies: a child fails fast and its parent decides. */
class KernelCrashError extends Error {}

const LAST_OUTPUT_CHARS = 2000;

/**
 * One agent: a conversation with a model and one kernel, journaled. The kernel starts while the first
 * model request is in flight and is awaited only when the first cell needs it. Children are agents of
 * the same class, one level deeper, sharing the tree (endpoint, interpreter, event stream).
 */
export class AgentSession implements ChildAgent {
  readonly id: string;
  readonly dir: string;
  readonly depth: number;
  readonly journal: Journal;
  readonly budget: Budget;
  readonly client: ModelClient;
  readonly children: ChildManager;
  private readonly messages: Message[] = [];
  private readonly inbox: { from: string; text: string }[] = [];
  private readonly kernelReady: Promise<Kernel>;
  private readonly system: string;
  private turnCounter = 0;
  private submission: SubmitPayload | undefined;
  private abort = new AbortController();
  private cancelled: string | undefined;
  private liveKernel: Kernel | undefined;
  private currentCallId: string | undefined;
  private pendingReload = false;
  private lastSeen = "";
  private closed = false;

  private constructor(
    readonly tree: AgentTree,
    private readonly params: AgentParams,
  ) {
    this.id = params.id;
    this.dir = params.dir;
    this.depth = params.depth;
    this.budget = params.budget;
    this.client = params.client;
    this.children = new ChildManager(this);
    const now = tree.now();
    this.journal = Journal.create(
      this.dir,
      {
        id: this.id,
        parent: params.parentId,
        created: now.toISOString(),
        cwd: tree.options.cwd,
        title: params.title,
        provider: params.client.provider,
        model: params.client.model,
        relm: tree.options.relmVersion,
      },
      { secrets: tree.options.secrets },
    );
    this.emit({
      type: "session",
      id: this.id,
      dir: this.dir,
      title: params.title,
      provider: params.client.provider,
      model: params.client.model,
    });
    const described = params.variables.map((spec) => describeVariable(spec));
    for (const v of described) {
      this.record({ type: "variable", name: v.name, varType: v.type, size: v.size, preview: v.preview });
    }
    this.system = buildSystemPrompt(
      {
        cwd: tree.options.cwd,
        depth: this.depth,
        maxDepth: tree.maxDepth,
        date: now.toISOString().slice(0, 10),
        platform: `${process.platform} ${process.arch}`,
        pythonVersion: tree.python.version,
        ipythonVersion: tree.python.ipython,
        variables: described.map(renderVariableLine),
      },
      {
        harness: tree.options.harness?.block,
        agentsMd: tree.agentsMd,
        role: params.parentId
          ? "You are a sub-agent: another agent's code started you with the task below and is waiting for " +
            "your result. Finish it yourself; for a structured result call submit(value), otherwise your " +
            "final text is the result."
          : undefined,
        instructions: params.spec?.instructions
          ? { spec: params.spec.name, text: params.spec.instructions }
          : undefined,
        specs: tree.specs(),
      },
    );
    this.kernelReady = this.bootKernel();
    // Surfaced when a cell needs the kernel; until then a failed start must not crash the process.
    this.kernelReady.catch(() => {});
  }

  /** The agent a person starts: the root of a new tree. */
  static async create(options: SessionOptions): Promise<AgentSession> {
    const python = await findPython(options.kernel.env, options.kernel.cacheDir);
    const tree = new AgentTree(options, python);
    const id = newSessionId();
    return new AgentSession(tree, {
      id,
      dir: sessionDir(options.home, id),
      title: options.title,
      depth: 0,
      client: options.client,
      budget: new Budget(options.limits),
      variables: options.variables,
      sink: tree.sink,
    });
  }

  newChild(params: ChildParams): ChildAgent {
    const parentSink = this.params.sink;
    return new AgentSession(this.tree, {
      id: params.id,
      dir: params.dir,
      title: params.task.split("\n")[0]?.slice(0, 80) ?? params.name,
      depth: params.depth,
      parentId: params.parentId,
      client: params.client,
      budget: params.budget,
      variables: params.variables,
      spec: params.spec,
      // Events of descendants keep the id of the agent they came from.
      sink: (event) => parentSink("agent" in event ? event : { ...event, agent: params.id }),
    });
  }

  get systemPrompt(): string {
    return this.system;
  }

  spent(): SpendRecord {
    return this.budget.spent();
  }

  lastOutput(): string {
    return this.lastSeen;
  }

  /** Runs one user turn to its end. Never throws for model or cell failures: they are outcomes. */
  async run(userText: string): Promise<TurnOutcome> {
    if (this.closed) throw new Error("session is closed");
    if (this.cancelled) return { status: "interrupted", reason: this.cancelled };
    this.abort = new AbortController();
    const ctx: LoopContext = {
      client: this.client,
      system: this.system,
      messages: this.messages,
      budget: this.budget,
      sink: this.params.sink,
      abort: this.abort,
      record: (body) => this.record(body),
      runCell: (turn, callId, code) => this.runCell(turn, callId, code),
      takeSubmission: () => {
        const s = this.submission;
        this.submission = undefined;
        return s ? { value: s, text: submissionText(s) } : undefined;
      },
      takeMessages: () => this.inbox.splice(0),
      nextTurnNumber: () => ++this.turnCounter,
      interruptReason: () => this.cancelled ?? "interrupted by the user",
    };
    try {
      const outcome = await runTurn(ctx, userText);
      if (outcome.status === "done") this.lastSeen = outcome.text.slice(-LAST_OUTPUT_CHARS);
      return outcome;
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

  /** Ends this agent's work for good, and its children's. */
  cancel(reason: string): void {
    this.cancelled ??= reason;
    this.interrupt();
    this.children.cancelAll(reason);
  }

  deliver(from: string, text: string): void {
    this.inbox.push({ from, text });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.children.closeAll("its parent ended");
    await this.kernelReady.catch(() => undefined);
    // Also when the boot failed half-way (e.g. loading an input): the process may be running.
    await this.liveKernel?.shutdown();
    if (this.depth === 0) await this.tree.close();
    // Inputs handed over for this agent are its to remove, loaded or not (it may never have started).
    for (const v of this.params.variables)
      if (v.consume && "pickle" in v.source) rmSync(v.source.pickle, { force: true });
    this.journal.close();
  }

  record(body: JournalBody): JournalEvent {
    const event = this.journal.append(body);
    this.emit(event);
    return event;
  }

  /** For llm(): the tree's client for a model name. */
  clientFor(model?: string | null): ModelClient {
    return model ? this.tree.client(model) : this.client;
  }

  setSubmission(payload: SubmitPayload): void {
    this.record({ type: "submit", value: payload.json !== undefined ? payload.json : payload.repr });
    this.submission = payload;
  }

  private emit(event: AgentEvent): void {
    try {
      this.params.sink(event);
    } catch {
      // A broken front end must not stop the agent; the journal already has the event.
    }
  }

  private async bootKernel(): Promise<Kernel> {
    const k = this.tree.options.kernel;
    const template = this.depth > 0 ? await this.tree.kernelTemplate() : undefined;
    const kernel = await startKernel({
      template,
      cwd: this.tree.options.cwd,
      env: k.env,
      passEnv: k.passEnv,
      python: this.tree.python,
      cellTimeoutMs: k.cellTimeoutMs,
      outputCap: k.outputCap,
      outputDir: this.journal.outputsDir,
      onOutput: (text) => this.emit({ type: "cell_output_delta", callId: this.currentCallId ?? "", text }),
      onHostRequest: (method, params) => handleHostRequest(this, method, params),
      onLifecycle: (event) => this.onKernelLifecycle(event),
    });
    this.liveKernel = kernel;
    await this.loadVariables(kernel);
    this.pendingReload = false;
    return kernel;
  }

  private async loadVariables(kernel: Kernel): Promise<void> {
    for (const spec of this.params.variables) {
      await kernel.setVariable(spec.name, spec.source);
      if (spec.consume && "pickle" in spec.source) rmSync(spec.source.pickle, { force: true });
    }
  }

  private onKernelLifecycle(event: KernelLifecycleEvent): void {
    if (this.closed) return;
    if (event.type === "started") {
      const how = event.forkedFrom
        ? `, forked from template ${event.forkedFrom}`
        : event.fallback
          ? `, spawned (${event.fallback})`
          : "";
      this.record({
        type: "kernel",
        event: "started",
        pid: event.pid,
        detail: `python ${event.python.version}${how}`,
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

  private async runCell(turn: number, callId: string, code: string): Promise<CellResult> {
    const kernel = await this.kernelReady;
    if (this.abort.signal.aborted) {
      // Interrupted while the kernel was still starting: the cell never ran.
      const skipped = notRun("Not run: the turn was interrupted.");
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
    this.lastSeen = result.output.slice(-LAST_OUTPUT_CHARS);
    if (result.status === "crashed" && this.params.parentId) {
      this.recordCell(turn, callId, result);
      throw new KernelCrashError(`its kernel died during a cell: ${result.note ?? "no detail"}`);
    }
    if (this.pendingReload) {
      // A restarted kernel lost the user's --var inputs; put them back so the model can carry on.
      this.pendingReload = false;
      const names = this.params.variables.map((v) => v.name);
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

/** How a submitted value reads as a final answer: JSON when it has one, else its repr. */
function submissionText(payload: SubmitPayload): string {
  if (payload.json === undefined) return payload.repr;
  return typeof payload.json === "string" ? payload.json : JSON.stringify(payload.json, null, 2);
}
