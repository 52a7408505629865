import { rmSync } from "node:fs";
import { findPython, markKernelEnv } from "../kernel/index.js";
import type { CellImage } from "../kernel/types.js";
import type { Message, ModelClient } from "../llm/types.js";
import { Journal, newSessionId, sessionDir } from "../session/index.js";
import type { JournalBody, JournalEvent, SpendRecord } from "../session/types.js";
import { AgentKernel, type KernelState } from "./agent-kernel.js";
import { Budget, type BudgetLimits } from "./budget.js";
import { type ChildAgent, ChildManager, type ChildParams, type SubmitPayload } from "./children.js";
import { contextWindow } from "./compaction.js";
import type { AgentEvent, EventSink } from "./events.js";
import { handleHostRequest } from "./host-api.js";
import { rootLearning, type SessionLearning } from "./learn.js";
import { type LoopContext, runTurn, type TurnOutcome } from "./loop.js";
import { startedEvent } from "./mcp-api.js";
import { McpWarmer } from "./mcp-warm.js";
import { Mailbox, type Received } from "./messaging.js";
import { buildSystemPrompt } from "./prompt.js";
import type { RebuiltConversation } from "./resume.js";
import {
  type CheckpointSummary,
  restoredSinceLastCheckpoint,
  SessionCheckpoints,
} from "./session-checkpoints.js";
import { type CompactionOutcome, compactConversation } from "./session-compaction.js";
import { type PromptInputs, promptInputsFor, renewedPrompt, resumedPromptInputs } from "./session-prompt.js";
import { openForResume, SessionResumeError, settleResumed } from "./session-resume.js";
import { PendingVariables, type UserVariable } from "./session-variables.js";
import type { AgentSpec } from "./specs.js";
import { AgentTree, type KernelSettings, type TreeOptions } from "./tree.js";
import { describeVariable, renderVariableLine, type VariableSpec } from "./variables.js";

export type { KernelSettings };

export interface SessionOptions extends TreeOptions {
  /** Given when the id was chosen before the session started (a detached run prints it first). */
  id?: string;
  title: string;
  variables: VariableSpec[];
  limits: BudgetLimits;
}

export interface ResumeOptions extends TreeOptions {
  id: string;
  limits: BudgetLimits;
}

export { SessionResumeError };

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
  /** Where its kernel runs (a kernel URI); default: its parent's, the root's the tree's (kernel-target.ts). */
  kernel?: string;
  /** The agent that started this one. */
  parent?: AgentSession;
  /** Continue an existing journal instead of starting one. */
  resume?: { journal: Journal; system: string; rebuilt: RebuiltConversation; events: JournalEvent[] };
}

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
  /** Where this agent's kernel runs (a kernel URI), undefined: the tree's own launcher. */
  get kernelUri(): string | undefined {
    return this.params.kernel ?? this.params.parent?.kernelUri ?? this.tree.options.kernel.target;
  }
  readonly journal: Journal;
  readonly budget: Budget;
  readonly children: ChildManager;
  /** The model this agent calls; the root's can be switched (`setModel`). */
  private currentClient: ModelClient;
  private readonly messages: Message[] = [];
  private readonly mailbox: Mailbox;
  private readonly kernel: AgentKernel;
  private system: string;
  /** How the system prompt was built, so a compaction can rebuild it with a refined harness. */
  private promptInputs: PromptInputs;
  /** File checkpoints before each turn that runs code (the root agent; children share its files). */
  private readonly checkpoints: SessionCheckpoints | undefined;
  /** Input + output tokens of the last model response: the next prompt's size, which compaction watches. */
  private lastContextTokens = 0;
  /** Variables a person sent with a message, set in the kernel before the model reads it. */
  private readonly pendingVariables = new PendingVariables(() => this.dir);
  /** Inside run(): a turn of this agent is in progress. */
  private running = false;
  /** An interrupt came between two turns of one piece of work (an autonomous run): stop the next one. */
  interruptNextRun = false;
  /** The objective restated at every continuation and after every compaction (/goal, --goal). */
  goal: string | undefined;
  goalDone = false;
  /** Online refinement (--learn, /learn): the root's only; undefined in children. */
  learning: SessionLearning | undefined;
  /** Counters an autonomous run compares to notice a stall. */
  progressNotes = 0;
  cellsRun = 0;
  private turnCounter = 0;
  private submission: SubmitPayload | undefined;
  private abort = new AbortController();
  private cancelled: string | undefined;
  private lastSeen = "";
  /** Starts the MCP servers a cell names while the model writes it (mcp-warm.ts). */
  private readonly mcpWarmer: McpWarmer | undefined;
  closed = false;

  private constructor(
    readonly tree: AgentTree,
    private readonly params: AgentParams,
  ) {
    // The kernel reads these as they change (the journal is opened below, `closed` later).
    const self = this;
    this.id = params.id;
    this.dir = params.dir;
    this.depth = params.depth;
    this.budget = params.budget;
    this.currentClient = params.client;
    this.children = new ChildManager(this);
    this.mailbox = new Mailbox(this.id);
    this.mcpWarmer = tree.mcp
      ? new McpWarmer(tree.mcp, (info) => this.record(startedEvent(info)))
      : undefined;
    this.kernel = new AgentKernel({
      tree,
      depth: this.depth,
      dir: this.dir,
      get journal() {
        return self.journal;
      },
      variables: params.variables,
      failOnCrash: params.parentId !== undefined,
      kernelUri: params.kernel ?? params.parent?.kernelUri ?? tree.options.kernel.target,
      get closed() {
        return self.closed;
      },
      get aborted() {
        return self.abort.signal.aborted;
      },
      record: (body) => this.record(body),
      emit: (event) => this.emit(event),
      hostRequest: (method, p) => handleHostRequest(this, method, p),
    });
    const now = tree.now();
    if (params.resume) {
      const { rebuilt, events } = params.resume;
      this.journal = params.resume.journal;
      this.system = params.resume.system;
      this.messages.push(...rebuilt.messages);
      this.turnCounter = rebuilt.lastTurn;
      this.goal = rebuilt.goal;
      this.lastContextTokens = rebuilt.contextTokens;
      this.promptInputs = resumedPromptInputs(tree, events);
      this.emit(this.sessionEvent(params));
      this.checkpoints = this.openCheckpoints(restoredSinceLastCheckpoint(events));
      this.learning = this.startLearning(events);
      return;
    }
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
    this.emit(this.sessionEvent(params));
    const described = params.variables.map((spec) => describeVariable(spec));
    for (const v of described) {
      this.record({ type: "variable", name: v.name, varType: v.type, size: v.size, preview: v.preview });
    }
    this.promptInputs = promptInputsFor(tree, {
      depth: this.depth,
      variables: described.map(renderVariableLine),
      child: params.parentId !== undefined,
      spec: params.spec,
    });
    this.system = buildSystemPrompt(...this.promptInputs);
    // Kept in the journal so a resumed session sends exactly the same system prompt (prompt cache).
    this.record({ type: "system_prompt", text: this.system });
    this.kernel.ensure();
    this.checkpoints = this.depth === 0 ? this.openCheckpoints() : undefined;
    this.learning = this.startLearning([]);
  }

  private startLearning(events: readonly JournalEvent[]): SessionLearning | undefined {
    if (this.depth > 0) return undefined;
    const signal = () => (this.running ? this.abort.signal : undefined);
    return rootLearning(this, events, () => this.turnCounter, signal);
  }

  private openCheckpoints(restored?: number[]): SessionCheckpoints {
    return new SessionCheckpoints(
      this.tree.options.home,
      this.tree.options.cwd,
      this.id,
      (b) => this.record(b),
      restored,
    );
  }

  private sessionEvent(params: AgentParams): AgentEvent {
    return {
      type: "session",
      id: this.id,
      dir: this.dir,
      title: params.title,
      provider: params.client.provider,
      model: params.client.model,
    };
  }

  /** The agent a person starts: the root of a new tree. */
  static async create(options: SessionOptions): Promise<AgentSession> {
    const python = await findPython(options.kernel.env, options.kernel.cacheDir);
    const id = options.id ?? newSessionId();
    const tree = new AgentTree(markKernels(options, id), python);
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

  /**
   * Continues a saved or interrupted session in this process: the conversation is rebuilt from the
   * journal, whatever was in flight is answered as "not replayed", and the kernel is restored from the
   * last snapshot. Returns the note that tells the model all that; send it as (the start of) the next
   * turn's message.
   */
  static async resume(options: ResumeOptions): Promise<{ session: AgentSession; note: string }> {
    const python = await findPython(options.kernel.env, options.kernel.cacheDir);
    const tree = new AgentTree(markKernels(options, options.id), python);
    const dir = sessionDir(options.home, options.id);
    const { header, events, journal, system, rebuilt } = openForResume(dir, options.id, options.secrets);
    // A model switched with /model stays switched; children without a model of their own follow it.
    const client = rebuilt.model ? tree.client(rebuilt.model) : options.client;
    tree.setDefaultClient(client);
    const session = new AgentSession(tree, {
      id: options.id,
      dir,
      title: header.title,
      depth: 0,
      client,
      budget: new Budget(options.limits),
      variables: [],
      sink: tree.sink,
      resume: { journal, system, rebuilt, events },
    });
    const note = await settleResumed(
      {
        record: (body) => session.record(body),
        pushMessage: (message) => session.messages.push(message),
        restoreKernel: async () => {
          session.kernel.restoreNext();
          await session.kernel.ensure().catch(() => undefined);
          return session.kernel.takeRestored() ?? { restored: [], notRestored: [] };
        },
        now: () => tree.now(),
      },
      rebuilt,
      journal.repairedTail,
    );
    session.notePending = note;
    session.settledAtResume =
      rebuilt.settled && rebuilt.unanswered.length === 0 && rebuilt.modelCallInFlight === undefined;
    return { session, note };
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
      ...(params.kernel ? { kernel: params.kernel } : {}),
      parent: this,
      // Events of descendants keep the id of the agent they came from.
      sink: (event) => parentSink("agent" in event ? event : { ...event, agent: params.id }),
    });
  }

  get systemPrompt(): string {
    return this.system;
  }

  get client(): ModelClient {
    return this.currentClient;
  }

  /**
   * Switches this agent to another model of the same endpoint from its next model call (journaled as
   * `model`); children started later without a model of their own get it too.
   */
  setModel(name: string): ModelClient {
    if (name !== this.currentClient.model && !this.tree.canSwitchModels) {
      throw new Error("this session's endpoint was set up for one model only");
    }
    const client = this.tree.client(name);
    this.currentClient = client;
    if (this.depth === 0) this.tree.setDefaultClient(client);
    this.record({ type: "model", model: client.model, provider: client.provider });
    return client;
  }

  /** Input + output tokens of the last model response (0 before any, and right after a compaction). */
  get contextTokens(): number {
    return this.lastContextTokens;
  }

  get kernelState(): KernelState {
    return this.kernel.state;
  }

  get busy(): boolean {
    return this.running;
  }

  /** Messages delivered during a turn and not yet read at a turn boundary. */
  get unread(): number {
    return this.mailbox.unreadCount;
  }

  spent(): SpendRecord {
    return this.budget.spent();
  }

  lastOutput(): string {
    return this.lastSeen;
  }

  /** Told to the model with the next message (what a resume found), then cleared. */
  private notePending: string | undefined;
  /** A resumed session whose last turn had ended: nothing to continue until new work arrives. */
  settledAtResume = false;

  /** Runs one user turn to its end. Never throws for model or cell failures: they are outcomes. */
  async run(message: string): Promise<TurnOutcome> {
    if (this.closed) throw new Error("session is closed");
    const userText = this.notePending ? `${this.notePending}\n\n${message}` : message;
    this.notePending = undefined;
    if (this.cancelled) return { status: "interrupted", reason: this.cancelled };
    if (this.interruptNextRun) {
      this.interruptNextRun = false;
      this.record({ type: "interrupted", reason: "interrupted by the user" });
      return { status: "interrupted", reason: "interrupted by the user" };
    }
    this.abort = new AbortController();
    const self = this;
    const ctx: LoopContext = {
      get client() {
        return self.client;
      },
      get system() {
        return self.system;
      },
      get contextWindow() {
        return contextWindow(self.client.model, self.tree.options.compaction?.windows).tokens;
      },
      cacheKey: this.id,
      messages: this.messages,
      budget: this.budget,
      sink: this.params.sink,
      abort: this.abort,
      record: (body) => this.record(body),
      runCell: async (turn, callId, code, deadline) => {
        const result = await this.kernel.runCell(turn, callId, code, deadline);
        if (result.output.length > 0) this.cellsRun += 1;
        this.lastSeen = result.output.slice(-LAST_OUTPUT_CHARS);
        return result;
      },
      takeSubmission: () => {
        const s = this.submission;
        this.submission = undefined;
        return s ? { value: s, text: submissionText(s) } : undefined;
      },
      takeMessages: () => this.mailbox.takeUnread(),
      nextTurnNumber: () => ++this.turnCounter,
      interruptReason: () => this.cancelled ?? "interrupted by the user",
      beforeModelCall: async () => {
        await this.pendingVariables.apply({
          addVariable: (spec) => this.kernel.addVariable(spec),
          record: (body) => this.record(body),
          note: (text) => this.messages.push({ role: "user", content: [{ type: "text", text }] }),
          named: (d) => {
            const facts = this.promptInputs[0];
            const others = facts.variables.filter((line) => !line.startsWith(`\`${d.name}\`:`));
            facts.variables = [...others, renderVariableLine(d)];
          },
        });
        await this.compact(false);
        await this.learning?.beforeModelCall();
      },
      beforeCells: async (turn) => {
        await this.checkpoints?.beforeCells(turn);
      },
      afterResponse: (usage) => {
        this.lastContextTokens = usage.inputTokens + usage.outputTokens;
      },
      onToolCallDelta: (index, delta) => this.mcpWarmer?.push(index, delta),
    };
    this.mcpWarmer?.reset();
    this.running = true;
    try {
      const outcome = await runTurn(ctx, userText);
      if (outcome.status === "done") this.lastSeen = outcome.text.slice(-LAST_OUTPUT_CHARS);
      // An interrupted turn ends once its sub-agents are gone too (kernels closed, ends journaled).
      if (outcome.status === "interrupted") await this.children.closeAll(outcome.reason);
      return outcome;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.record({ type: "error", message });
      return { status: "error", message };
    } finally {
      this.running = false;
    }
  }

  /** Stops the model stream and interrupts the running cell; the turn ends as "interrupted". */
  interrupt(): void {
    this.abort.abort();
    this.kernel.interrupt();
  }

  /**
   * A person's stop: the running turn ends (model stream and cell) and every running descendant is
   * cancelled, but this agent takes the next message as usual. True when something was running.
   */
  interruptTree(reason = "interrupted by the user"): boolean {
    const active = this.running || this.children.running > 0;
    this.interrupt();
    this.children.cancelAll(reason);
    return active;
  }

  /**
   * Variables a person sent with a message: staged now (files in the session folder), set in the
   * kernel at the next turn boundary, before the model reads the message. Returns how to name them.
   */
  queueVariables(variables: UserVariable[]): string[] {
    return this.pendingVariables.queue(variables);
  }

  /** Ends this agent's work for good, and its children's. */
  cancel(reason: string): void {
    this.cancelled ??= reason;
    this.interrupt();
    this.children.cancelAll(reason);
  }

  /** A message for this agent: read by the model at its next turn boundary, and by inbox() in code. */
  deliver(from: string, text: string): void {
    this.mailbox.deliver(from, text);
  }

  /** A message that starts a turn (its text is the turn's): inbox() in code sees it too. */
  noteReceived(from: string, text: string): void {
    this.mailbox.note(from, text);
  }

  takeReceived(): Received[] {
    return this.mailbox.takeReceived();
  }

  get parentAgent(): AgentSession | undefined {
    return this.params.parent;
  }

  childRecipients(to: string) {
    return this.children.recipients(to);
  }

  get scheduler() {
    return this.tree.options.scheduler;
  }

  get sendToSession(): ((to: string, from: string, text: string) => Promise<void>) | undefined {
    return this.tree.options.sendToSession;
  }

  /** Messages that arrived after the last turn boundary of a turn that has ended. */
  takeUndelivered(): { from: string; text: string }[] {
    return this.mailbox.takeUnread();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.children.closeAll("its parent ended");
    await this.kernel.close();
    await this.checkpoints?.close();
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

  /** look(): an image for the result of the cell running now (look-api.ts). */
  attachImage(image: CellImage): boolean {
    return this.kernel.attachImage(image);
  }

  /** For llm(): the tree's client for a model name. */
  clientFor(model?: string | null): ModelClient {
    return model ? this.tree.client(model) : this.client;
  }

  setSubmission(payload: SubmitPayload): void {
    this.record({ type: "submit", value: payload.json !== undefined ? payload.json : payload.repr });
    this.submission = payload;
  }

  /**
   * Compacts the conversation when the prompt nears the model's window (or now, when forced: /compact).
   * A refined harness takes effect here: the system prompt is rebuilt with it and journaled — also by a
   * /compact that is skipped because a summary would not shrink the prompt.
   */
  async compact(force: boolean): Promise<CompactionOutcome> {
    const outcome = await compactConversation(
      {
        client: this.client,
        messages: this.messages,
        budget: this.budget,
        goal: this.goal,
        record: (b) => this.record(b),
        liveVariables: () => this.kernel.variableNames(),
        filesTouched: () => this.checkpoints?.filesTouched() ?? Promise.resolve([]),
      },
      this.tree.options.compaction ?? {},
      this.lastContextTokens,
      force,
    );
    if (outcome.compacted) {
      this.lastContextTokens = 0;
      // Before the prompt is rebuilt below, so what a learning pass applies is in it.
      await this.learning?.atCompaction();
    } else if (!(force && outcome.skipped)) return outcome;
    const reload = this.tree.options.harness?.reload;
    if (reload) {
      // With the root session's own scope, whichever agent compacts; children started after the
      // root's compaction get the renewed block too.
      const block = reload(this.rootDir);
      if (this.depth === 0) this.tree.harnessBlock = block;
      const renewed = renewedPrompt(this.promptInputs, block, this.system);
      if (renewed) {
        this.promptInputs = renewed.inputs;
        this.system = renewed.text;
        this.record({ type: "system_prompt", text: renewed.text });
        if (!outcome.compacted) {
          return {
            ...outcome,
            message: `${outcome.message}; the system prompt was renewed with the harness`,
          };
        }
      }
    }
    return outcome;
  }

  /**
   * Puts the files back as they were before `turn`; without one, steps back one code-running turn
   * each time (never the same checkpoint twice).
   */
  undo(turn?: number) {
    return (
      this.checkpoints?.undo(turn) ?? Promise.resolve({ error: "file checkpoints belong to the root agent" })
    );
  }

  /** The file checkpoints of this session, newest first. */
  listCheckpoints(): Promise<CheckpointSummary[] | { error: string }> {
    return (
      this.checkpoints?.list() ?? Promise.resolve({ error: "file checkpoints belong to the root agent" })
    );
  }

  /** The root agent's folder: its harness scope is the session scope of the whole tree. */
  private get rootDir(): string {
    let root: AgentSession = this;
    while (root.params.parent) root = root.params.parent;
    return root.dir;
  }

  /** The workspace's state as a hash, for "nothing changed" checks (null without checkpoints). */
  fingerprint(): Promise<string | null> {
    return this.checkpoints?.fingerprint() ?? Promise.resolve(null);
  }

  get cwd(): string {
    return this.tree.options.cwd;
  }

  setGoal(text: string): void {
    this.goal = text;
    this.goalDone = false;
    this.record({ type: "goal", text });
  }

  /** Frees the kernel of an idle session (snapshotted; the next cell restores it). */
  releaseKernel(): Promise<void> {
    return this.kernel.release();
  }

  private emit(event: AgentEvent): void {
    try {
      this.params.sink(event);
    } catch {
      // A broken front end must not stop the agent; the journal already has the event.
    }
  }
}

/** How a submitted value reads as a final answer: JSON when it has one, else its repr. */
function submissionText(payload: SubmitPayload): string {
  if (payload.json === undefined) return payload.repr;
  return typeof payload.json === "string" ? payload.json : JSON.stringify(payload.json, null, 2);
}

/**
 * The tree's options with its kernels (and their template) marked as this session's: a session host
 * then knows a connection from inside them for what it is (src/host/peer.ts).
 */
function markKernels<T extends TreeOptions>(options: T, id: string): T {
  return { ...options, kernel: { ...options.kernel, env: markKernelEnv(options.kernel.env, id) } };
}
