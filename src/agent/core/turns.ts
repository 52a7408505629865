import type { JournalBody, JournalEvent } from "../../session/types.js";
import type { ChildManager, SubmitPayload } from "../children/manager.js";
import type { Mailbox } from "../children/messaging.js";
import { type CompactingAgent, compactAgent } from "../compaction/compact-agent.js";
import { contextWindow } from "../compaction/messages.js";
import type { RootHooks } from "../hooks.js";
import type { AgentKernel } from "../kernel-api/kernel.js";
import { settleKernelFacts } from "../kernel-api/kernel-facts.js";
import { startedEvent } from "../kernel-api/mcp.js";
import { McpWarmer } from "../kernel-api/mcp-warm.js";
import type { LessonInbox } from "../lessons.js";
import type { HookOrigin } from "../user-hooks/hooks.js";
import { afterCellHooks, beforeCellHooks, hookOrigin } from "../user-hooks/points.js";
import { stopHooks, userPromptHooks } from "../user-hooks/stop.js";
import type { SessionCheckpoints } from "./checkpoints.js";
import type { AgentLog } from "./log.js";
import { type LoopContext, runTurn, type TurnOutcome } from "./loop.js";
import type { AgentModel } from "./model.js";
import type { AgentTree } from "./tree.js";
import { PendingImages } from "./user-images.js";
import { PendingVariables } from "./user-variables.js";

const BY_THE_USER = "interrupted by the user";

/** Where an agent is between and inside its turns; its kernel and its learning passes read it too. */
export class TurnState {
  /** The agent has ended (close()): it runs nothing more. */
  closed = false;
  /** Inside run(): a turn is in progress. */
  running = false;
  /** Why the agent's work ended for good (a parent's or person's cancel); every later turn ends at once. */
  cancelled: string | undefined;
  /** An interrupt came between two turns of one piece of work (an autonomous run): stop the next one. */
  interruptNextRun = false;
  /** The running turn's; a new one for each turn, aborted by interrupt(). */
  abort = new AbortController();

  get aborted(): boolean {
    return this.abort.signal.aborted;
  }

  /** The running turn's signal, for work done inside it (a learning pass); undefined between turns. */
  get signal(): AbortSignal | undefined {
    return this.running ? this.abort.signal : undefined;
  }
}

/** An agent as its turns use it (agent.ts): the collaborators a turn reaches, and what compaction needs. */
interface TurnAgent extends CompactingAgent {
  /** The agent's id: its conversation's name in the provider's prompt cache. */
  readonly id: string;
  readonly dir: string;
  readonly tree: AgentTree;
  readonly state: TurnState;
  readonly model: AgentModel;
  readonly log: AgentLog;
  readonly kernel: AgentKernel;
  readonly mailbox: Mailbox;
  readonly lessons: LessonInbox;
  readonly children: ChildManager;
  readonly checkpoints: SessionCheckpoints | undefined;
  readonly hooks: RootHooks | undefined;
  record(body: JournalBody): JournalEvent;
}

/**
 * Runs an agent's turns: gives the loop (loop.ts) the agent's conversation, log and kernel, and what
 * happens at its boundaries (messages, a person's variables and images, compaction, checkpoints, a
 * submitted value). Stopping a turn is the agent's (interrupt, cancel: agent.ts).
 */
export class TurnRunner {
  private submission: SubmitPayload | undefined;
  /** Told to the model with the next message (what a resume found, a mode switch), then cleared. */
  private notePending: string | undefined;
  /**
   * Variables a person sent with a message: staged at once (files in the session folder), set in the
   * kernel at the next turn boundary, before the model reads the message.
   */
  readonly pendingVariables: PendingVariables;
  /** Images a person sent with a message, image parts of the next user message. */
  readonly pendingImages: PendingImages;
  /** Starts the MCP servers a cell names while the model is still writing it (mcp-warm.ts). */
  private readonly mcpWarmer: McpWarmer | undefined;
  /** Where this agent's hooks come from: the same for its whole life, so made once, not per cell. */
  private readonly origin: HookOrigin;

  constructor(private readonly agent: TurnAgent) {
    const { tree, log } = agent;
    this.pendingVariables = new PendingVariables(() => agent.dir);
    this.pendingImages = new PendingImages(() => agent.dir);
    this.mcpWarmer = tree.mcp ? new McpWarmer(tree.mcp, (info) => log.record(startedEvent(info))) : undefined;
    this.origin = hookOrigin(agent);
  }

  /** Runs one user turn to its end. Never throws for model or cell failures: they are outcomes. */
  async run(message: string, from?: string): Promise<TurnOutcome> {
    const { state, log, tree, children } = this.agent;
    if (state.closed) throw new Error("session is closed");
    const userText = this.notePending ? `${this.notePending}\n\n${message}` : message;
    this.notePending = undefined;
    if (state.cancelled) return { status: "interrupted", reason: state.cancelled };
    if (state.interruptNextRun) {
      state.interruptNextRun = false;
      log.record({ type: "interrupted", reason: BY_THE_USER, spent: this.agent.budget.spent() });
      return { status: "interrupted", reason: BY_THE_USER };
    }
    state.abort = new AbortController();
    const ctx = this.context();
    this.mcpWarmer?.reset();
    state.running = true;
    try {
      const origin = this.origin;
      const hooks = origin.agentId === undefined ? tree.userHooks : undefined;
      const prompt = await userPromptHooks(hooks, origin, message);
      if (prompt.blocked !== undefined) return prompt.blocked;
      const first = await runTurn(ctx, prompt.context ? `${userText}\n\n${prompt.context}` : userText, from);
      // The root stops: Stop hooks may send it back to work, a few times at most.
      const outcome = await stopHooks(hooks, origin, first, (text) => runTurn(ctx, text, "stop_hook"));
      // An interrupted turn ends once its sub-agents are gone too (kernels closed, ends journaled).
      if (outcome.status === "interrupted") await children.closeAll(outcome.reason);
      return outcome;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.record({ type: "error", message });
      return { status: "error", message };
    } finally {
      state.running = false;
    }
  }

  /** The loop's view of this agent for one turn. */
  private context(): LoopContext {
    const agent = this.agent;
    const { id, tree, state, model, conversation, log, kernel, checkpoints } = agent;
    const mcpWarmer = this.mcpWarmer;
    return {
      get client() {
        return model.current;
      },
      get contextWindow() {
        return contextWindow(model.current.model, tree.options.compaction?.windows).tokens;
      },
      conversation,
      log,
      kernel,
      sink: log.sink,
      budget: agent.budget,
      cacheKey: id,
      abort: state.abort,
      takeSubmission: () => {
        const s = this.submission;
        this.submission = undefined;
        return s ? { value: s, text: submissionText(s) } : undefined;
      },
      takeMessages: () => agent.mailbox.takeUnread(),
      takeLessons: () => agent.lessons.take(),
      takeImages: () => this.pendingImages.take(),
      interruptReason: () => state.cancelled ?? BY_THE_USER,
      beforeModelCall: async () => {
        await this.pendingVariables.apply(agent);
        await settleKernelFacts(agent);
        await compactAgent(agent, "auto");
        await agent.hooks?.beforeModelCall?.();
      },
      compact: () => compactAgent(agent, "overflow"),
      beforeCells: async (turn) => {
        await checkpoints?.beforeCells(turn, () => kernel.sharesFilesWithHost());
        kernel.writeGate = checkpoints?.writeGate();
      },
      onToolCallDelta: (index, delta) => mcpWarmer?.push(index, delta),
      beforeCell: (code) => beforeCellHooks(tree.userHooks, this.origin, code),
      afterCell: async (code, result) => {
        await afterCellHooks(tree.userHooks, this.origin, code, result);
        return tree.approvals.afterCell(id);
      },
    };
  }

  /** submit() or done() in a cell: the turn ends after that cell, with this as its value. */
  setSubmission(payload: SubmitPayload): void {
    this.agent.log.record({
      type: "submit",
      value: payload.json !== undefined ? payload.json : payload.repr,
    });
    this.submission = payload;
  }

  /** Told to the model with the next message: what a resume found, a mode switch. */
  noteNext(note: string): void {
    // Two before one message (a resume, then a mode switch): both are said, in order.
    this.notePending = this.notePending ? `${this.notePending}\n\n${note}` : note;
  }
}

/** How a submitted value reads as a final answer: JSON when it has one, else its repr. */
function submissionText(payload: SubmitPayload): string {
  if (payload.json === undefined) return payload.repr;
  return typeof payload.json === "string" ? payload.json : JSON.stringify(payload.json, null, 2);
}
