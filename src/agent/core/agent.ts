import { rmSync } from "node:fs";
import { describeMode, type PermissionMode } from "../../config/permission-mode.js";
import type { CellResult } from "../../kernel/types.js";
import type { ModelClient } from "../../llm/types.js";
import { Journal } from "../../session/index.js";
import type { JournalBody, JournalEvent, PlanStep, SpendRecord } from "../../session/types.js";
import type { Budget } from "../budget/budget.js";
import { type ChildAgent, ChildManager, type ChildParams } from "../children/manager.js";
import { Mailbox } from "../children/messaging.js";
import type { AgentSpec } from "../children/specs.js";
import { AgentGoal } from "../gates/goal.js";
import type { RootHooks } from "../hooks.js";
import type { KernelCallsAgent } from "../kernel-api/calls.js";
import { AgentKernel, type RestoredVariables } from "../kernel-api/kernel.js";
import { LessonInbox } from "../lessons.js";
import { hookOrigin } from "../user-hooks/points.js";
import { restoredSinceLastCheckpoint, SessionCheckpoints } from "./checkpoints.js";
import { Conversation } from "./conversation.js";
import type { EventSink } from "./events.js";
import { AgentLog } from "./log.js";
import type { TurnOutcome } from "./loop.js";
import { AgentModel } from "./model.js";
import { promptInputsFor, resumedPromptInputs } from "./prompt-inputs.js";
import type { RebuiltConversation } from "./resume.js";
import { SHELL_CALL_PREFIX, shellCellCode, shellMessage, shellPython } from "./shell.js";
import type { AgentTree } from "./tree.js";
import { TurnRunner, TurnState } from "./turns.js";
import { describeVariable, renderVariableLine, type VariableSpec, variableEvent } from "./variables.js";

/** What one agent is started with (start.ts makes a root's, newChild() a child's). */
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
  /** A sub-agent's permission mode (already narrowed to its parent's); the root's is the tree's. */
  mode?: PermissionMode;
  /** Where its kernel runs (a kernel URI); default: its parent's, the root's the tree's (kernel-target.ts). */
  kernel?: string;
  /** The agent that started this one. */
  parent?: Agent;
  /** Continue an existing journal instead of starting one. */
  resume?: { journal: Journal; system: string; rebuilt: RebuiltConversation; events: JournalEvent[] };
}

/**
 * One agent: a conversation with a model and one kernel, journaled. The kernel starts while the first
 * model request is in flight and is awaited only when the first cell needs it. Children are agents of
 * the same class, one level deeper, sharing the tree (endpoint, interpreter, event stream).
 *
 * It makes and owns its collaborators, and the other layers (a host, the CLI, a parent's ChildManager,
 * an autonomous run) reach the one they need: `log` (journal and event stream), `model`,
 * `conversation`, `goal`, `kernel`, `turns` (the loop's runner, turns.ts), `state`, `children`,
 * `mailbox`, `lessons`, `checkpoints`. Its own methods are the ones that take several of them: run,
 * runShell, interrupt, cancel, switchMode, close. The calls from its kernel (kernel-api/calls.ts) are
 * answered for it as it is. start.ts creates and resumes a root.
 */
export class Agent implements ChildAgent, KernelCallsAgent {
  readonly id: string;
  readonly dir: string;
  readonly depth: number;
  /** Where this agent's kernel runs (a kernel URI), undefined: the tree's own launcher. */
  readonly kernelUri: string | undefined;
  /** The root agent's folder: its harness scope is the session scope of the whole tree. */
  readonly rootDir: string;
  readonly budget: Budget;
  /** The agent that started this one (send(..., "parent")); none for the root. */
  readonly parent: Agent | undefined;
  readonly journal: Journal;
  readonly log: AgentLog;
  readonly model: AgentModel;
  readonly conversation: Conversation;
  /** The objective restated at every continuation and after every compaction (/goal, --goal). */
  readonly goal: AgentGoal;
  /** The task list plan() set last: a kernel started again asks for it (plan.get). */
  planSteps: PlanStep[];
  readonly state = new TurnState();
  readonly kernel: AgentKernel;
  readonly children: ChildManager;
  readonly mailbox: Mailbox;
  /** Lessons applied mid-session, appended before this agent's next model request (lessons.ts). */
  readonly lessons: LessonInbox;
  /** File checkpoints before each turn that runs code (the root agent; children share its files). */
  readonly checkpoints: SessionCheckpoints | undefined;
  /** What the tree's plugin attached to this root agent (hooks.ts; learning); undefined in children. */
  readonly hooks: RootHooks | undefined;
  readonly turns: TurnRunner;
  /** A resumed session whose last turn had ended: nothing to continue until new work arrives. */
  settledAtResume = false;
  /** A sub-agent's permission mode, fixed at its start; undefined for the root (the tree's, switchable). */
  private readonly ownMode: PermissionMode | undefined;
  /** Its inputs (`--var`, a parent's rlm() variables, a person's): a restarted kernel loads them again. */
  readonly variables: VariableSpec[];
  private readonly sink: EventSink;

  /**
   * A new agent's journal is created and gets its variables and system prompt, and its kernel starts
   * booting; a resumed one continues its journal and conversation.
   */
  constructor(
    readonly tree: AgentTree,
    params: AgentParams,
  ) {
    const { resume, depth } = params;
    this.id = params.id;
    this.dir = params.dir;
    this.depth = depth;
    this.budget = params.budget;
    this.parent = params.parent;
    this.variables = params.variables;
    this.sink = params.sink;
    this.kernelUri = params.kernel ?? params.parent?.kernelUri ?? tree.options.kernel.target;
    this.rootDir = params.parent?.rootDir ?? params.dir;
    this.ownMode = depth === 0 ? undefined : (params.mode ?? tree.permissions.mode);
    this.journal = resume?.journal ?? createJournal(tree, params);
    this.log = new AgentLog(this.journal, params.sink);
    const record = (body: JournalBody) => this.log.record(body);
    this.model = new AgentModel(params.client, tree, depth === 0, record);
    this.children = new ChildManager(this);
    this.mailbox = new Mailbox(params.id);
    this.lessons = new LessonInbox(params.id);
    tree.lessons.join(params.id, this.lessons);
    this.log.emit({
      type: "session",
      id: params.id,
      dir: params.dir,
      title: params.title,
      provider: params.client.via,
      model: params.client.model,
    });
    this.conversation = resume
      ? Conversation.resumed(resumedPromptInputs(tree, resume.events), resume.system, resume.rebuilt)
      : startConversation(tree, params, this.kernelUri, record);
    this.goal = new AgentGoal(record, resume?.rebuilt.goal);
    this.planSteps = resume?.rebuilt.plan ?? [];
    this.kernel = new AgentKernel(this);
    if (!resume) this.kernel.ensure();
    this.checkpoints =
      depth === 0
        ? new SessionCheckpoints(
            tree.options.home,
            tree.options.cwd,
            params.id,
            record,
            resume ? restoredSinceLastCheckpoint(resume.events) : undefined,
            {},
            this.journal.outputsDir,
          )
        : undefined;
    this.hooks = depth === 0 ? this.rootHooks(resume?.events ?? []) : undefined;
    this.turns = new TurnRunner(this);
    if (depth === 0) {
      // Requests and answers go to the session's own journal (what `relm attach` replays), whichever
      // agent of the tree asked; an approved mode switch is the root's, after the cell that asked.
      tree.approvals.journalTo(record);
      tree.approvals.rootIs({ id: this.id, switchMode: (mode) => this.switchAfterApproval(mode) });
    }
  }

  /** What the tree's plugin attaches to the root (hooks.ts), given the root as it sees it. */
  private rootHooks(events: readonly JournalEvent[]): RootHooks | undefined {
    const { tree, conversation, state, model } = this;
    return tree.options.hooks?.root?.(
      {
        id: this.id,
        dir: this.dir,
        cwd: tree.options.cwd,
        home: tree.options.home,
        budget: this.budget,
        journal: this.journal,
        tree,
        get turns() {
          return conversation.turn;
        },
        get signal() {
          return state.signal;
        },
        record: (body) => this.log.record(body),
        clientFor: (m) => model.named(m),
      },
      events,
    );
  }

  newChild(params: ChildParams): Agent {
    const parentSink = this.sink;
    return new Agent(this.tree, {
      ...params,
      title: params.task.split("\n")[0]?.slice(0, 80) ?? params.name,
      parent: this,
      // Events of descendants keep the id of the agent they came from.
      sink: (event) => parentSink("agent" in event ? event : { ...event, agent: params.id }),
    });
  }

  /** A child fails fast when its kernel dies (its parent decides); the root restarts it and goes on. */
  get failOnCrash(): boolean {
    return this.depth > 0;
  }

  /** The permission mode this agent's kernel runs in (docs/sandbox.md). */
  get mode(): PermissionMode {
    return this.ownMode ?? this.tree.permissions.mode;
  }

  /** The sandbox of the agent's mode (undefined in full mode): fetch() follows its network. */
  get sandbox() {
    return this.tree.permissions.sandboxFor(this.mode);
  }

  /** send() to another session: refused by the host layer from a sandboxed agent to an unsandboxed session. */
  get sendToSession(): ((to: string, from: string, text: string) => Promise<void>) | undefined {
    const send = this.tree.options.sendToSession;
    return send && ((to, from, text) => send(to, from, text, this.sandbox !== undefined));
  }

  record(body: JournalBody): JournalEvent {
    return this.log.record(body);
  }

  /**
   * Runs one user turn to its end. Never throws for model or cell failures: they are outcomes. `from`:
   * who sent the message when not the person (journaled; /rewind lists only the person's messages).
   */
  async run(message: string, from?: string): Promise<TurnOutcome> {
    const outcome = await this.turns.run(message, from);
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
    const { state, conversation, kernel } = this;
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
    this.state.abort.abort();
    this.kernel.interrupt();
  }

  /**
   * A person's stop: the running turn ends (model stream and cell) and every running descendant is
   * cancelled, but this agent takes the next message as usual. True when something was running.
   */
  interruptTree(reason = "interrupted by the user"): boolean {
    const active = this.state.running || this.children.running > 0;
    this.interrupt();
    this.children.cancelAll(reason);
    return active;
  }

  /** Ends this agent's work for good, and its children's. */
  cancel(reason: string): void {
    this.state.cancelled ??= reason;
    this.interruptTree(reason);
  }

  /** A message for this agent: read by the model at its next turn boundary, and by inbox() in code. */
  deliver(from: string, text: string): void {
    this.mailbox.deliver(from, text);
  }

  spent(): SpendRecord {
    return this.budget.spent();
  }

  /** The last cell output or text, for a parent's error report. */
  lastOutput(): string {
    return this.conversation.lastOutput;
  }

  /** The user's PreCompact hooks (docs/hooks.md), run by a compaction that is going ahead. */
  async preCompact(trigger: "auto" | "manual"): Promise<void> {
    await this.tree.userHooks?.fire("PreCompact", hookOrigin(this), { trigger }, trigger);
  }

  /**
   * Frees the kernel of an idle session (snapshotted; the next cell restores it), and the warm template
   * the kernel was forked from when no other forked kernel runs (the next cell starts them again).
   */
  async releaseKernel(): Promise<void> {
    await this.kernel.release();
    await this.tree.releaseTemplate();
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
    const running = this.kernel.state !== "stopped";
    await this.kernel.release();
    await this.tree.switchMode(mode);
    // A kernel that ran is started again now, so its variables come back (and what did not is said).
    const report = running ? await this.kernel.restoreSnapshot() : { restored: [], notRestored: [] };
    this.record({ type: "mode", mode, from, ...report });
    if (tellNextTurn) this.turns.noteNext(modeNote(mode, running, report));
    return { mode, changed: true, ...report };
  }

  /** request('mode', ...) granted: the switch, once the cell that asked has ended; what it did, for the model. */
  private async switchAfterApproval(mode: PermissionMode): Promise<string> {
    if (this.children.running > 0)
      return `[relm] The switch to mode ${mode} was approved but not made: sub-agents are running in the current mode. Ask again when they have ended.`;
    const done = await this.switchMode(mode, false);
    return modeNote(mode, true, done).replace("The user switched", "As approved, relm switched");
  }

  async close(): Promise<void> {
    if (this.state.closed) return;
    this.state.closed = true;
    this.tree.lessons.leave(this.id);
    await this.children.closeAll("its parent ended");
    await this.kernel.close();
    await this.checkpoints?.close();
    if (this.depth === 0) await this.tree.close();
    // Inputs handed over for this agent are its to remove, loaded or not (it may never have started).
    for (const v of this.variables)
      if (v.consume && "pickle" in v.source) rmSync(v.source.pickle, { force: true });
    this.journal.close();
  }
}

function createJournal(tree: AgentTree, params: AgentParams): Journal {
  return Journal.create(
    params.dir,
    {
      id: params.id,
      parent: params.parentId,
      created: tree.now().toISOString(),
      cwd: tree.options.cwd,
      title: params.title,
      provider: params.client.via,
      model: params.client.model,
      relm: tree.options.relmVersion,
    },
    { secrets: tree.options.secrets },
  );
}

/** A new agent's conversation: its variables journaled and named in its system prompt. */
function startConversation(
  tree: AgentTree,
  params: AgentParams,
  kernel: string | undefined,
  record: (body: JournalBody) => unknown,
): Conversation {
  const described = params.variables.map((spec) => describeVariable(spec));
  for (const v of described) record(variableEvent(v));
  const inputs = promptInputsFor(tree, {
    depth: params.depth,
    variables: described.map(renderVariableLine),
    child: params.parentId !== undefined,
    spec: params.spec,
    kernel,
  });
  return Conversation.start(inputs, record);
}

/** What a mode switch did: the mode now, and the variables a restarted kernel got back or not. */
export interface ModeSwitch extends RestoredVariables {
  mode: PermissionMode;
  /** false: a status question, or the session was in that mode already. */
  changed: boolean;
}

/** What the model is told with its next message after the person switched the mode. */
function modeNote(mode: PermissionMode, restarted: boolean, report: RestoredVariables): string {
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
