import type { PermissionMode } from "../../config/permission-mode.js";
import type { ModelClient } from "../../llm/types.js";
import { Journal } from "../../session/index.js";
import type { JournalBody, JournalEvent } from "../../session/types.js";
import type { Budget } from "../budget/budget.js";
import { ChildManager, type ParentAgent } from "../children/manager.js";
import { Mailbox } from "../children/messaging.js";
import type { AgentSpec } from "../children/specs.js";
import { type CompactingAgent, compactAgent } from "../compaction/compact-agent.js";
import { AgentGoal } from "../gates/goal.js";
import type { RootHooks } from "../hooks.js";
import { KernelCallsTarget } from "../kernel-api/call-target.js";
import { handleKernelCall } from "../kernel-api/calls.js";
import { AgentKernel } from "../kernel-api/kernel.js";
import { settleKernelFacts } from "../kernel-api/kernel-facts.js";
import { startedEvent } from "../kernel-api/mcp.js";
import { McpWarmer } from "../kernel-api/mcp-warm.js";
import { LessonInbox } from "../lessons.js";
import { hookOrigin } from "../user-hooks/points.js";
import { restoredSinceLastCheckpoint, SessionCheckpoints } from "./checkpoints.js";
import { Conversation } from "./conversation.js";
import type { EventSink } from "./events.js";
import { AgentLog } from "./log.js";
import { AgentModel } from "./model.js";
import { promptInputsFor, resumedPromptInputs } from "./prompt-inputs.js";
import type { RebuiltConversation } from "./resume.js";
import type { AgentTree } from "./tree.js";
import { TurnRunner, TurnState } from "./turns.js";
import { describeVariable, renderVariableLine, type VariableSpec } from "./variables.js";

/** What one agent is started with. */
export interface AgentParams {
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
  parent?: {
    readonly id: string;
    readonly kernelUri: string | undefined;
    readonly rootDir: string;
    deliver(from: string, text: string): void;
  };
  /** Continue an existing journal instead of starting one. */
  resume?: { journal: Journal; system: string; rebuilt: RebuiltConversation; events: JournalEvent[] };
}

/** The collaborators one agent is made of; session.ts answers for them. */
export interface AgentParts {
  readonly journal: Journal;
  readonly log: AgentLog;
  readonly model: AgentModel;
  readonly conversation: Conversation;
  readonly goal: AgentGoal;
  readonly state: TurnState;
  readonly kernel: AgentKernel;
  readonly children: ChildManager;
  readonly mailbox: Mailbox;
  /** Lessons applied mid-session, appended before this agent's next model request (lessons.ts). */
  readonly lessons: LessonInbox;
  /** File checkpoints before each turn that runs code (the root agent; children share its files). */
  readonly checkpoints: SessionCheckpoints | undefined;
  /** What the tree's plugin attached to the root (hooks.ts; learning: --learn, /learn, verdicts). */
  readonly hooks: RootHooks | undefined;
  readonly compaction: CompactingAgent;
  readonly turns: TurnRunner;
  readonly hostApi: KernelCallsTarget;
}

/**
 * Makes the collaborators of the agent `self` (its id, dir, depth, tree and budget set) and wires them
 * to each other. A new agent's journal is created and gets its variables and system prompt, and its
 * kernel starts booting; a resumed one continues its journal and conversation.
 */
export function assembleAgent(
  self: ParentAgent & { readonly kernelUri: string | undefined; readonly rootDir: string },
  params: AgentParams,
): AgentParts {
  const { tree, depth } = self;
  const resume = params.resume;
  const now = tree.now();
  const journal = resume?.journal ?? createJournal(tree, params, now);
  const log = new AgentLog(journal, params.sink);
  const record = (body: JournalBody) => log.record(body);
  const model = new AgentModel(params.client, tree, depth === 0, record);
  const children = new ChildManager(self);
  const mailbox = new Mailbox(params.id);
  const lessons = new LessonInbox(params.id);
  tree.lessons.join(params.id, lessons);
  const mcpWarmer = tree.mcp ? new McpWarmer(tree.mcp, (info) => record(startedEvent(info))) : undefined;
  log.emit({
    type: "session",
    id: params.id,
    dir: params.dir,
    title: params.title,
    provider: params.client.provider,
    model: params.client.model,
  });
  const conversation = resume
    ? Conversation.resumed(resumedPromptInputs(tree, resume.events), resume.system, resume.rebuilt)
    : startConversation(tree, params, record);
  const goal = new AgentGoal(record, resume?.rebuilt.goal);
  const state = new TurnState();
  const kernel: AgentKernel = new AgentKernel({
    tree,
    depth,
    dir: params.dir,
    log,
    variables: params.variables,
    failOnCrash: params.parentId !== undefined,
    kernelUri: self.kernelUri,
    get mode() {
      return self.mode;
    },
    state,
    // The target is made below; the kernel calls it only from a cell.
    hostRequest: (method, p): Promise<unknown> => handleKernelCall(hostApi, method, p),
    kernelStarted: (python) => conversation.kernelStarted(python),
  });
  if (!resume) kernel.ensure();
  const restored = resume ? restoredSinceLastCheckpoint(resume.events) : undefined;
  const checkpoints =
    depth === 0
      ? new SessionCheckpoints(
          tree.options.home,
          tree.options.cwd,
          params.id,
          record,
          restored,
          {},
          journal.outputsDir,
        )
      : undefined;
  const hooks =
    depth === 0
      ? tree.options.hooks?.root?.(
          {
            id: params.id,
            dir: params.dir,
            cwd: tree.options.cwd,
            home: tree.options.home,
            budget: params.budget,
            journal,
            tree,
            get turns() {
              return conversation.turn;
            },
            get signal() {
              return state.signal;
            },
            record,
            clientFor: (m) => model.named(m),
          },
          resume?.events ?? [],
        )
      : undefined;
  const shared = {
    id: params.id,
    dir: params.dir,
    tree,
    depth,
    rootDir: self.rootDir,
    budget: params.budget,
    log,
    model,
    conversation,
    goal,
    kernel,
    children,
    mailbox,
    lessons,
    checkpoints,
    hooks,
  };
  const compaction: CompactingAgent = {
    ...shared,
    preCompact: async (trigger) => {
      const origin = hookOrigin({ id: params.id, dir: params.dir, tree, record });
      await tree.userHooks?.fire("PreCompact", origin, { trigger }, trigger);
    },
  };
  const turns = new TurnRunner({
    ...shared,
    state,
    mcpWarmer,
    beforeModelCall: async () => {
      await settleKernelFacts({
        conversation,
        kernel,
        log,
        signal: state.abort.signal,
        timeLeftMs: () => params.budget.timeLeftMs(),
      });
      await compactAgent(compaction, false);
      await hooks?.beforeModelCall?.();
    },
  });
  const hostApi: KernelCallsTarget = new KernelCallsTarget({
    ...shared,
    turns,
    parent: params.parent,
    mode: () => self.mode,
  });
  return {
    journal,
    log,
    model,
    conversation,
    goal,
    state,
    kernel,
    children,
    mailbox,
    lessons,
    checkpoints,
    hooks,
    compaction,
    turns,
    hostApi,
  };
}

function createJournal(tree: AgentTree, params: AgentParams, now: Date): Journal {
  return Journal.create(
    params.dir,
    {
      id: params.id,
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
}

/** A new agent's conversation: its variables journaled and named in its system prompt. */
function startConversation(
  tree: AgentTree,
  params: AgentParams,
  record: (body: JournalBody) => unknown,
): Conversation {
  const described = params.variables.map((spec) => describeVariable(spec));
  for (const v of described) {
    record({ type: "variable", name: v.name, varType: v.type, size: v.size, preview: v.preview });
  }
  const inputs = promptInputsFor(tree, {
    depth: params.depth,
    variables: described.map(renderVariableLine),
    child: params.parentId !== undefined,
    spec: params.spec,
    kernel: params.kernel ?? params.parent?.kernelUri ?? tree.options.kernel.target,
  });
  return Conversation.start(inputs, record);
}
