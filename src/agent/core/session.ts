import { rmSync } from "node:fs";
import { join } from "node:path";
import { describeMode, type PermissionMode } from "../../config/permission-mode.js";
import { findPython, markKernelEnv } from "../../kernel/index.js";
import { probeConfinement } from "../../kernel/sandbox/index.js";
import type { CellResult } from "../../kernel/types.js";
import type { ModelClient } from "../../llm/types.js";
import { JOURNAL_FILE, type Journal, newSessionId, readJournal, sessionDir } from "../../session/index.js";
import type { JournalBody, JournalEvent, SpendRecord } from "../../session/types.js";
import { Budget, type BudgetLimits } from "../budget/budget.js";
import type { ChildAgent, ChildManager, ChildParams } from "../children/manager.js";
import { type CompactionOutcome, compactAgent } from "../compaction/compact-agent.js";
import type { RootHooks } from "../hooks.js";
import type { KernelState } from "../kernel-api/kernel.js";
import type { CheckpointSummary, SessionCheckpoints } from "./checkpoints.js";
import type { TurnOutcome } from "./loop.js";
import { type AgentParams, type AgentParts, assembleAgent } from "./parts.js";
import { type RewindPoint, type RewindResult, rewind, rewindPoints } from "./rewind.js";
import { openForResume, settleResumed } from "./session-resume.js";
import { SHELL_CALL_PREFIX, shellCellCode, shellMessage, shellPython } from "./shell.js";
import { AgentTree, type TreeOptions } from "./tree.js";
import type { UserImage } from "./user-images.js";
import type { UserVariable } from "./user-variables.js";
import type { VariableSpec } from "./variables.js";

interface SessionOptions extends TreeOptions {
  /** Given when the id was chosen before the session started (a detached run prints it first). */
  id?: string;
  title: string;
  variables: VariableSpec[];
  limits: BudgetLimits;
}

interface ResumeOptions extends TreeOptions {
  id: string;
  limits: BudgetLimits;
}

/**
 * One agent: a conversation with a model and one kernel, journaled. The kernel starts while the first
 * model request is in flight and is awaited only when the first cell needs it. Children are agents of
 * the same class, one level deeper, sharing the tree (endpoint, interpreter, event stream).
 *
 * An agent is made of named collaborators, made and wired by parts.ts: its log (journal and event
 * stream), model, conversation, goal, kernel, turns (the loop's runner), children, mailbox, file
 * checkpoints, and the target of its kernel's calls. This class is what the other layers hold (a host,
 * the CLI, a parent's ChildManager, an autonomous run) and answers for them.
 */
export class AgentSession implements ChildAgent {
  readonly id: string;
  readonly dir: string;
  readonly depth: number;
  /** Where this agent's kernel runs (a kernel URI), undefined: the tree's own launcher. */
  readonly kernelUri: string | undefined;
  /** The root agent's folder: its harness scope is the session scope of the whole tree. */
  readonly rootDir: string;
  readonly journal: Journal;
  readonly budget: Budget;
  readonly children: ChildManager;
  /** What the tree's plugin attached to this root agent (hooks.ts); undefined in children. */
  readonly hooks: RootHooks | undefined;
  /** A resumed session whose last turn had ended: nothing to continue until new work arrives. */
  settledAtResume = false;
  private readonly parts: AgentParts;
  /** A sub-agent's permission mode, fixed at its start; undefined for the root (the tree's, switchable). */
  private readonly ownMode: PermissionMode | undefined;

  private constructor(
    readonly tree: AgentTree,
    private readonly params: AgentParams,
  ) {
    this.id = params.id;
    this.dir = params.dir;
    this.depth = params.depth;
    this.budget = params.budget;
    this.kernelUri = params.kernel ?? params.parent?.kernelUri ?? tree.options.kernel.target;
    this.rootDir = params.parent?.rootDir ?? params.dir;
    this.ownMode = params.depth === 0 ? undefined : (params.mode ?? tree.permissions.mode);
    this.parts = assembleAgent(this, params);
    this.journal = this.parts.journal;
    this.children = this.parts.children;
    this.hooks = this.parts.hooks;
    if (params.depth === 0) {
      // Requests and answers go to the session's own journal (what `relm attach` replays), whichever
      // agent of the tree asked; an approved mode switch is the root's, after the cell that asked.
      tree.approvals.journalTo((body) => this.record(body));
      tree.approvals.rootIs({ id: this.id, switchMode: (mode) => this.switchAfterApproval(mode) });
    }
  }

  /** request('mode', ...) granted: the switch, once the cell that asked has ended; what it did, for the model. */
  private async switchAfterApproval(mode: PermissionMode): Promise<string> {
    if (this.children.running > 0)
      return `[relm] The switch to mode ${mode} was approved but not made: sub-agents are running in the current mode. Ask again when they have ended.`;
    const done = await this.switchMode(mode, false);
    return modeNote(mode, true, done).replace("The user switched", "As approved, relm switched");
  }

  /** The agent a person starts: the root of a new tree. */
  static async create(options: SessionOptions): Promise<AgentSession> {
    const python = await findTreePython(options);
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
    const python = await findTreePython(options);
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
        pushMessage: (message) => session.parts.conversation.messages.push(message),
        restoreKernel: () => session.parts.kernel.restoreSnapshot(),
        now: () => tree.now(),
      },
      rebuilt,
      journal.repairedTail,
    );
    session.parts.turns.noteNext(note);
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
      mode: params.mode,
      parent: this,
      // Events of descendants keep the id of the agent they came from.
      sink: (event) => parentSink("agent" in event ? event : { ...event, agent: params.id }),
    });
  }

  get systemPrompt(): string {
    return this.parts.conversation.system;
  }

  /** The model this agent calls; the root's can be switched (`setModel`). */
  get client(): ModelClient {
    return this.parts.model.current;
  }

  /**
   * Switches this agent to another model of the same endpoint from its next model call (journaled as
   * `model`); children started later without a model of their own get it too.
   */
  setModel(name: string): ModelClient {
    return this.parts.model.switchTo(name);
  }

  /** The permission mode this agent's kernel runs in (docs/sandbox.md). */
  get mode(): PermissionMode {
    return this.ownMode ?? this.tree.permissions.mode;
  }

  /**
   * Switches the session to another permission mode (the root agent; between turns, with no sub-agent
   * running): the kernel's variables are snapshotted, the kernel stops, what ran under the old mode
   * stops (template, sandboxes, MCP servers), and a new kernel restores the variables under the new
   * mode. Journaled as `mode`; the model is told with its next message, naming what was not restored.
   */
  async switchMode(mode: PermissionMode, tellNextTurn = true): Promise<ModeSwitch> {
    if (this.depth !== 0) throw new Error("only the session's own mode can be switched");
    const from = this.tree.permissions.mode;
    if (mode === from) return { mode, changed: false, restored: [], notRestored: [] };
    const running = this.parts.kernel.state !== "stopped";
    await this.parts.kernel.release();
    await this.tree.switchMode(mode);
    // A kernel that ran is started again now, so its variables come back (and what did not is said).
    const report = running ? await this.parts.kernel.restoreSnapshot() : { restored: [], notRestored: [] };
    this.record({ type: "mode", mode, from, restored: report.restored, notRestored: report.notRestored });
    if (tellNextTurn) this.parts.turns.noteNext(modeNote(mode, running, report));
    return { mode, changed: true, ...report };
  }

  /** For llm(): the tree's client for a model name. */
  clientFor(model?: string | null): ModelClient {
    return this.parts.model.named(model);
  }

  /** Input + output tokens of the last model response (0 before any, and right after a compaction). */
  get contextTokens(): number {
    return this.parts.conversation.contextTokens;
  }

  get kernelState(): KernelState {
    return this.parts.kernel.state;
  }

  get busy(): boolean {
    return this.parts.state.running;
  }

  get closed(): boolean {
    return this.parts.state.closed;
  }

  /** An interrupt came between two turns of one piece of work (an autonomous run): stop the next one. */
  get interruptNextRun(): boolean {
    return this.parts.state.interruptNextRun;
  }

  set interruptNextRun(value: boolean) {
    this.parts.state.interruptNextRun = value;
  }

  /** Messages delivered during a turn and not yet read at a turn boundary. */
  get unread(): number {
    return this.parts.mailbox.unreadCount;
  }

  spent(): SpendRecord {
    return this.budget.spent();
  }

  lastOutput(): string {
    return this.parts.conversation.lastOutput;
  }

  /** The objective restated at every continuation and after every compaction (/goal, --goal). */
  get goal(): string | undefined {
    return this.parts.goal.text;
  }

  get goalDone(): boolean {
    return this.parts.goal.done;
  }

  /** Counters an autonomous run compares to notice a stall. */
  get progressNotes(): number {
    return this.parts.goal.progressNotes;
  }

  get cellsRun(): number {
    return this.parts.conversation.cellsRun;
  }

  setGoal(text: string): void {
    this.parts.goal.set(text);
  }

  /**
   * Runs one user turn to its end. Never throws for model or cell failures: they are outcomes. `from`:
   * who sent the message when not the person (journaled; /rewind lists only the person's messages).
   */
  async run(message: string, from?: string): Promise<TurnOutcome> {
    const outcome = await this.parts.turns.run(message, from);
    // The end of a turn is when a person looks at the work: say what they should not trust in it.
    if (this.depth === 0)
      for (const message of await this.tree.sandboxCreated()) this.record({ type: "warning", message });
    return outcome;
  }

  /**
   * A person's `!command` between turns (shell.ts): run in this agent's kernel as a cell of its own,
   * journaled like one, and kept in the conversation for the model's next turn. Esc interrupts it as it
   * does a cell (interrupt()).
   */
  async runShell(command: string): Promise<CellResult> {
    const { state, conversation, kernel } = this.parts;
    if (state.running) throw new Error("the agent is working: wait for the turn to end (or Esc) first");
    state.abort = new AbortController();
    state.running = true;
    try {
      const turn = conversation.turn;
      const callId = `${SHELL_CALL_PREFIX}${Date.now().toString(36)}`;
      const code = shellCellCode(command);
      this.record({ type: "cell", turn, callId, code });
      const result = await kernel.runCell(turn, callId, shellPython(command));
      conversation.messages.push(shellMessage(code, result));
      return result;
    } finally {
      state.running = false;
    }
  }

  /** Stops the model stream and interrupts the running cell; the turn ends as "interrupted". */
  interrupt(): void {
    this.parts.turns.interrupt();
  }

  /**
   * A person's stop: the running turn ends (model stream and cell) and every running descendant is
   * cancelled, but this agent takes the next message as usual. True when something was running.
   */
  interruptTree(reason = "interrupted by the user"): boolean {
    return this.parts.turns.interruptTree(reason);
  }

  /** Variables a person sent with a message, set in the kernel before the model reads it. */
  queueVariables(variables: UserVariable[]): string[] {
    return this.parts.turns.queueVariables(variables);
  }

  /** Images a person sent with a message: saved now, image parts of the next user message. */
  queueImages(images: readonly UserImage[]): void {
    this.parts.turns.pendingImages.queue(images);
  }

  /** Ends this agent's work for good, and its children's. */
  cancel(reason: string): void {
    this.parts.turns.cancel(reason);
  }

  /** A message for this agent: read by the model at its next turn boundary, and by inbox() in code. */
  deliver(from: string, text: string): void {
    this.parts.mailbox.deliver(from, text);
  }

  /** A message that starts a turn (its text is the turn's): inbox() in code sees it too. */
  noteReceived(from: string, text: string): void {
    this.parts.mailbox.note(from, text);
  }

  /** Messages that arrived after the last turn boundary of a turn that has ended. */
  takeUndelivered(): { from: string; text: string }[] {
    return this.parts.mailbox.takeUnread();
  }

  async close(): Promise<void> {
    if (this.parts.state.closed) return;
    this.parts.state.closed = true;
    this.tree.lessons.leave(this.id);
    await this.children.closeAll("its parent ended");
    await this.parts.kernel.close();
    await this.parts.checkpoints?.close();
    if (this.depth === 0) await this.tree.close();
    // Inputs handed over for this agent are its to remove, loaded or not (it may never have started).
    for (const v of this.params.variables)
      if (v.consume && "pickle" in v.source) rmSync(v.source.pickle, { force: true });
    this.journal.close();
  }

  record(body: JournalBody): JournalEvent {
    return this.parts.log.record(body);
  }

  /** Compacts the conversation now when forced (/compact), else when the prompt nears the window. */
  compact(force: boolean): Promise<CompactionOutcome> {
    return compactAgent(this.parts.compaction, force);
  }

  /**
   * Puts the files back as they were before `turn`; without one, steps back one code-running turn
   * each time (never the same checkpoint twice).
   */
  undo(turn?: number) {
    return (
      this.parts.checkpoints?.undo(turn) ??
      Promise.resolve({ error: "file checkpoints belong to the root agent" })
    );
  }

  /** The person's messages this conversation can go back to, oldest first (rewind.ts). */
  rewindPoints(): RewindPoint[] {
    return rewindPoints(readJournal(join(this.dir, JOURNAL_FILE)).events);
  }

  /** Back to just before the person's message `to` (a `user` event's number), the files too if asked. */
  rewind(to: number, files: boolean): Promise<RewindResult | { error: string }> {
    const { conversation, checkpoints, state } = this.parts;
    return rewind(
      { dir: this.dir, conversation, checkpoints, running: state.running, record: (b) => this.record(b) },
      to,
      files,
    );
  }

  /** The files now against this session's first checkpoint (`/diff`). */
  filesDiff(): ReturnType<SessionCheckpoints["sinceStart"]> {
    return (
      this.parts.checkpoints?.sinceStart() ??
      Promise.resolve({ error: "file checkpoints belong to the root agent" })
    );
  }

  /** The file checkpoints of this session, newest first. */
  listCheckpoints(): Promise<CheckpointSummary[] | { error: string }> {
    return (
      this.parts.checkpoints?.list() ??
      Promise.resolve({ error: "file checkpoints belong to the root agent" })
    );
  }

  /** The workspace's state as a hash, for "nothing changed" checks (null without checkpoints). */
  fingerprint(): Promise<string | null> {
    return this.parts.checkpoints?.fingerprint() ?? Promise.resolve(null);
  }

  /** Gates run in the tree's sandbox when it has one (autonomy.ts). */
  gateConfinement(): ReturnType<AgentTree["gateConfinement"]> {
    return this.tree.gateConfinement();
  }

  get cwd(): string {
    return this.tree.options.cwd;
  }

  /** Frees the kernel of an idle session (snapshotted; the next cell restores it). */
  async releaseKernel(): Promise<void> {
    await this.parts.kernel.release();
    await this.tree.releaseTemplate();
  }
}

/**
 * The tree's options with its kernels (and their template) marked as this session's: a session host
 * then knows a connection from inside them for what it is (src/host/peer.ts).
 */
/**
 * The tree's interpreter. In a sandboxed session, one that sandboxed code could have written (a python3
 * on PATH inside the project, as an activated project venv puts it) is probed only inside a confinement:
 * run on the host, a planted `python3` would run with the user's rights before any kernel starts.
 */
function findTreePython(options: TreeOptions) {
  const { env, cacheDir, permissions } = options.kernel;
  const sandboxed = permissions !== undefined && permissions.mode !== "full";
  const trust = sandboxed
    ? { untrusted: [options.cwd], wrap: probeConfinement(env, options.home) }
    : undefined;
  return findPython(env, cacheDir, trust);
}

function markKernels<T extends TreeOptions>(options: T, id: string): T {
  return { ...options, kernel: { ...options.kernel, env: markKernelEnv(options.kernel.env, id) } };
}

/** What a mode switch did: the mode now, and the variables a restarted kernel got back or not. */
interface ModeSwitch {
  mode: PermissionMode;
  /** false: the session was in that mode already. */
  changed: boolean;
  restored: string[];
  notRestored: { name: string; reason: string }[];
}

/** What the model is told with its next message after the person switched the mode. */
function modeNote(
  mode: PermissionMode,
  restarted: boolean,
  report: { restored: string[]; notRestored: { name: string; reason: string }[] },
): string {
  const parts = [`[relm] The user switched the permission mode to ${mode} (${describeMode(mode)}).`];
  if (mode === "plan")
    parts.push("Do not try to change files: read, analyse in memory and propose the changes instead.");
  if (restarted) {
    const back = report.restored.length > 0 ? `: ${report.restored.join(", ")}` : " (there were none)";
    parts.push(`The kernel was restarted under it and its variables restored from a snapshot${back}.`);
    if (report.notRestored.length > 0)
      parts.push(
        `Not restored: ${report.notRestored.map((v) => `${v.name} (${v.reason})`).join(", ")}; recompute them if you need them.`,
      );
  }
  return parts.join(" ");
}
