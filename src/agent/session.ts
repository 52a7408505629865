import { rmSync } from "node:fs";
import { join } from "node:path";
import { findPython } from "../kernel/index.js";
import type { Message, ModelClient } from "../llm/types.js";
import { JOURNAL_FILE, Journal, newSessionId, readJournal, sessionDir } from "../session/index.js";
import type { JournalBody, JournalEvent, SpendRecord } from "../session/types.js";
import { AgentKernel } from "./agent-kernel.js";
import { Budget, type BudgetLimits } from "./budget.js";
import { type ChildAgent, ChildManager, type ChildParams, type SubmitPayload } from "./children.js";
import type { AgentEvent, EventSink } from "./events.js";
import { handleHostRequest } from "./host-api.js";
import { HostRequestError } from "./host-errors.js";
import { type LoopContext, runTurn, type TurnOutcome } from "./loop.js";
import { MAX_INBOX, type Received } from "./messaging.js";
import { buildSystemPrompt } from "./prompt.js";
import { type RebuiltConversation, rebuildConversation } from "./resume.js";
import { SessionCheckpoints } from "./session-checkpoints.js";
import { compactConversation } from "./session-compaction.js";
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

/** A session that cannot be continued; the message says why. */
export class SessionResumeError extends Error {
  override name = "SessionResumeError";
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
  /** The agent that started this one. */
  parent?: AgentSession;
  /** Continue an existing journal instead of starting one. */
  resume?: { journal: Journal; system: string; rebuilt: RebuiltConversation };
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
  readonly journal: Journal;
  readonly budget: Budget;
  readonly client: ModelClient;
  readonly children: ChildManager;
  private readonly messages: Message[] = [];
  private readonly inbox: { from: string; text: string }[] = [];
  private readonly kernel: AgentKernel;
  private system: string;
  /** How the system prompt was built, so a compaction can rebuild it with a refined harness. */
  private promptInputs: Parameters<typeof buildSystemPrompt> | undefined;
  /** File checkpoints before each turn that runs code (the root agent; children share its files). */
  private readonly checkpoints: SessionCheckpoints | undefined;
  private lastInputTokens = 0;
  /** The objective restated at every continuation and after every compaction (/goal, --goal). */
  goal: string | undefined;
  goalDone = false;
  /** Counters an autonomous run compares to notice a stall. */
  progressNotes = 0;
  cellsRun = 0;
  private turnCounter = 0;
  private submission: SubmitPayload | undefined;
  private abort = new AbortController();
  private cancelled: string | undefined;
  private lastSeen = "";
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
    this.client = params.client;
    this.children = new ChildManager(this);
    this.kernel = new AgentKernel({
      tree,
      depth: this.depth,
      dir: this.dir,
      get journal() {
        return self.journal;
      },
      variables: params.variables,
      failOnCrash: params.parentId !== undefined,
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
      this.journal = params.resume.journal;
      this.system = params.resume.system;
      this.messages.push(...params.resume.rebuilt.messages);
      this.turnCounter = params.resume.rebuilt.lastTurn;
      this.goal = params.resume.rebuilt.goal;
      this.emit(this.sessionEvent(params));
      this.checkpoints = this.openCheckpoints();
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
    this.promptInputs = [
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
    ];
    this.system = buildSystemPrompt(...this.promptInputs);
    // Kept in the journal so a resumed session sends exactly the same system prompt (prompt cache).
    this.record({ type: "system_prompt", text: this.system });
    this.kernel.ensure();
    this.checkpoints = this.depth === 0 ? this.openCheckpoints() : undefined;
  }

  private openCheckpoints(): SessionCheckpoints {
    return new SessionCheckpoints(this.tree.options.home, this.tree.options.cwd, this.id, (b) =>
      this.record(b),
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
    const tree = new AgentTree(options, python);
    const id = options.id ?? newSessionId();
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
    const tree = new AgentTree(options, python);
    const dir = sessionDir(options.home, options.id);
    const { header, events } = readJournal(join(dir, JOURNAL_FILE));
    if (header.parent) {
      throw new SessionResumeError(
        `session ${options.id} is a sub-agent of ${header.parent}; resume that session instead`,
      );
    }
    const journal = Journal.open(dir, { secrets: options.secrets });
    // The latest one: a compaction may have renewed it (with a refined harness).
    const system = events.findLast((e) => e.type === "system_prompt");
    if (system?.type !== "system_prompt") {
      journal.close();
      throw new SessionResumeError(
        `session ${options.id} was written by an older relm and cannot be resumed`,
      );
    }
    const rebuilt = rebuildConversation(dir, events);
    const session = new AgentSession(tree, {
      id: options.id,
      dir,
      title: header.title,
      depth: 0,
      client: options.client,
      budget: new Budget(options.limits),
      variables: [],
      sink: tree.sink,
      resume: { journal, system: system.text, rebuilt },
    });
    const note = await session.settleAfterResume(rebuilt, journal.repairedTail);
    session.notePending = note;
    session.settledAtResume =
      rebuilt.settled && rebuilt.unanswered.length === 0 && rebuilt.modelCallInFlight === undefined;
    return { session, note };
  }

  private async settleAfterResume(rebuilt: RebuiltConversation, repairedTail: boolean): Promise<string> {
    const uncertain: string[] = [];
    if (repairedTail) uncertain.push("the journal's last line was half-written and was removed");
    if (rebuilt.modelCallInFlight !== undefined) {
      uncertain.push(
        `the model call of turn ${rebuilt.modelCallInFlight} was in flight; it was not replayed`,
      );
    }
    for (const { turn, call, started } of rebuilt.unanswered) {
      const reason = started
        ? "not run again: this cell was running when the session's host stopped, so it may have run partly"
        : "not run: the session's host stopped before this cell ran";
      this.record({ type: "tool_skipped", turn, callId: call.id, reason });
      this.messages.push({
        role: "tool",
        toolCallId: call.id,
        content: [{ type: "text", text: `[${reason}]` }],
      });
      uncertain.push(
        `a cell of turn ${turn} ${started ? "was running (it may have run partly)" : "had not started"}`,
      );
    }
    this.kernel.restoreNext();
    await this.kernel.ensure().catch(() => undefined);
    const restored = this.kernel.takeRestored() ?? { restored: [], notRestored: [] };
    this.record({
      type: "resumed",
      uncertain,
      restored: restored.restored,
      notRestored: restored.notRestored,
    });
    const lines = [`[relm] This session was resumed in a new process (${this.tree.now().toISOString()}).`];
    if (uncertain.length > 0) lines.push(`When the previous process stopped: ${uncertain.join("; ")}.`);
    if (restored.restored.length > 0) {
      lines.push(
        `Kernel variables restored from the snapshot after the last finished cell: ${restored.restored.join(", ")}.`,
      );
    }
    if (restored.notRestored.length > 0) {
      const lost = restored.notRestored.map((v) => `${v.name} (${v.reason})`).join(", ");
      lines.push(`Not restored: ${lost}.`);
    }
    return lines.join("\n");
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
      parent: this,
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
    this.abort = new AbortController();
    const self = this;
    const ctx: LoopContext = {
      client: this.client,
      get system() {
        return self.system;
      },
      messages: this.messages,
      budget: this.budget,
      sink: this.params.sink,
      abort: this.abort,
      record: (body) => this.record(body),
      runCell: async (turn, callId, code) => {
        const result = await this.kernel.runCell(turn, callId, code);
        if (result.output.length > 0) this.cellsRun += 1;
        this.lastSeen = result.output.slice(-LAST_OUTPUT_CHARS);
        return result;
      },
      takeSubmission: () => {
        const s = this.submission;
        this.submission = undefined;
        return s ? { value: s, text: submissionText(s) } : undefined;
      },
      takeMessages: () => this.inbox.splice(0),
      nextTurnNumber: () => ++this.turnCounter,
      interruptReason: () => this.cancelled ?? "interrupted by the user",
      beforeModelCall: async () => {
        await this.compact(false);
      },
      beforeCells: async (turn) => {
        await this.checkpoints?.beforeCells(turn);
      },
      afterResponse: (usage) => {
        this.lastInputTokens = usage.inputTokens;
      },
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
    this.kernel.interrupt();
  }

  /** Ends this agent's work for good, and its children's. */
  cancel(reason: string): void {
    this.cancelled ??= reason;
    this.interrupt();
    this.children.cancelAll(reason);
  }

  /** A message for this agent: read by the model at its next turn boundary, and by inbox() in code. */
  deliver(from: string, text: string): void {
    if (this.inbox.length >= MAX_INBOX) {
      throw new HostRequestError(
        `the inbox of agent ${this.id} is full (${MAX_INBOX} messages unread)`,
        "usage",
      );
    }
    this.inbox.push({ from, text });
    this.received.push({ from, text, time: new Date().toISOString() });
    if (this.received.length > MAX_INBOX * 10) this.received.splice(0, this.received.length - MAX_INBOX * 10);
  }

  private readonly received: Received[] = [];

  takeReceived(): Received[] {
    return this.received.splice(0);
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
    return this.inbox.splice(0);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.children.closeAll("its parent ended");
    await this.kernel.close();
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

  /**
   * Compacts the conversation when the prompt nears the model's window (or now, when forced: /compact).
   * A refined harness takes effect here: the system prompt is rebuilt with it and journaled.
   */
  async compact(force: boolean): Promise<string> {
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
      this.lastInputTokens,
      force,
    );
    if (!outcome.compacted) return outcome.message;
    this.lastInputTokens = 0;
    const reload = this.tree.options.harness?.reload;
    if (reload && this.promptInputs) {
      const [facts, extras] = this.promptInputs;
      this.promptInputs = [facts, { ...extras, harness: reload(this.dir) }];
      const renewed = buildSystemPrompt(...this.promptInputs);
      if (renewed !== this.system) {
        this.system = renewed;
        this.record({ type: "system_prompt", text: renewed });
      }
    }
    return outcome.message;
  }

  /** Puts the files back as they were before `turn` (default: the last turn with a checkpoint). */
  undo(turn?: number) {
    return (
      this.checkpoints?.undo(turn) ?? Promise.resolve({ error: "file checkpoints belong to the root agent" })
    );
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
