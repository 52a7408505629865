import type { Budget } from "../budget/budget.js";
import type { ChildManager, SubmitPayload } from "../children/manager.js";
import type { Mailbox } from "../children/messaging.js";
import { contextWindow } from "../compaction/messages.js";
import type { AgentKernel } from "../kernel-api/kernel.js";
import type { McpWarmer } from "../kernel-api/mcp-warm.js";
import type { LessonInbox } from "../lessons.js";
import type { HookOrigin } from "../user-hooks/hooks.js";
import { afterCellHooks, beforeCellHooks, hookOrigin } from "../user-hooks/points.js";
import { stopHooks, userPromptHooks } from "../user-hooks/stop.js";
import type { SessionCheckpoints } from "./checkpoints.js";
import type { Conversation } from "./conversation.js";
import type { AgentLog } from "./log.js";
import { type LoopContext, runTurn, type TurnOutcome } from "./loop.js";
import type { AgentModel } from "./model.js";
import type { AgentTree } from "./tree.js";
import { PendingImages } from "./user-images.js";
import { PendingVariables, type UserVariable } from "./user-variables.js";

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

/** The collaborators a turn is made of. */
interface TurnParts {
  /** The agent's id: its conversation's name in the provider's prompt cache. */
  readonly id: string;
  readonly dir: string;
  readonly tree: AgentTree;
  readonly state: TurnState;
  readonly model: AgentModel;
  readonly conversation: Conversation;
  readonly log: AgentLog;
  readonly kernel: AgentKernel;
  readonly budget: Budget;
  readonly mailbox: Mailbox;
  readonly lessons: LessonInbox;
  readonly children: ChildManager;
  readonly checkpoints: SessionCheckpoints | undefined;
  readonly mcpWarmer: McpWarmer | undefined;
  /** Before each model call, once a person's variables are set: compaction, then a learning pass. */
  beforeModelCall(): Promise<void>;
}

/**
 * Runs an agent's turns: gives the loop (loop.ts) the agent's conversation, log and kernel, and what
 * happens at its boundaries (messages, a person's variables, compaction, checkpoints, a submitted
 * value); stops them (interrupt, cancel).
 */
export class TurnRunner {
  private submission: SubmitPayload | undefined;
  /** Told to the model with the next message (what a resume found), then cleared. */
  private notePending: string | undefined;
  /** Variables a person sent with a message, set in the kernel before the model reads it. */
  private readonly pendingVariables: PendingVariables;
  /** Images a person sent with a message, image parts of the next user message. */
  readonly pendingImages: PendingImages;

  constructor(private readonly parts: TurnParts) {
    this.pendingVariables = new PendingVariables(() => parts.dir);
    this.pendingImages = new PendingImages(() => parts.dir);
  }

  /** Runs one user turn to its end. Never throws for model or cell failures: they are outcomes. */
  async run(message: string, from?: string): Promise<TurnOutcome> {
    const { state, log } = this.parts;
    if (state.closed) throw new Error("session is closed");
    const userText = this.notePending ? `${this.notePending}\n\n${message}` : message;
    this.notePending = undefined;
    if (state.cancelled) return { status: "interrupted", reason: state.cancelled };
    if (state.interruptNextRun) {
      state.interruptNextRun = false;
      log.record({ type: "interrupted", reason: BY_THE_USER });
      return { status: "interrupted", reason: BY_THE_USER };
    }
    state.abort = new AbortController();
    const ctx = this.context();
    this.parts.mcpWarmer?.reset();
    state.running = true;
    try {
      const origin = this.hookOrigin();
      const hooks = origin.agentId === undefined ? this.parts.tree.userHooks : undefined;
      const prompt = await userPromptHooks(hooks, origin, message);
      if (prompt.blocked !== undefined) return prompt.blocked;
      const first = await runTurn(ctx, prompt.context ? `${userText}\n\n${prompt.context}` : userText, from);
      // The root stops: Stop hooks may send it back to work, a few times at most.
      const outcome = await stopHooks(hooks, origin, first, (text) => runTurn(ctx, text, "stop_hook"));
      // An interrupted turn ends once its sub-agents are gone too (kernels closed, ends journaled).
      if (outcome.status === "interrupted") await this.parts.children.closeAll(outcome.reason);
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
    const { id, tree, state, model, conversation, log, kernel, checkpoints, mcpWarmer } = this.parts;
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
      budget: this.parts.budget,
      cacheKey: id,
      abort: state.abort,
      takeSubmission: () => {
        const s = this.submission;
        this.submission = undefined;
        return s ? { value: s, text: submissionText(s) } : undefined;
      },
      takeMessages: () => this.parts.mailbox.takeUnread(),
      takeLessons: () => this.parts.lessons.take(),
      takeImages: () => this.pendingImages.take(),
      interruptReason: () => state.cancelled ?? BY_THE_USER,
      beforeModelCall: async () => {
        await this.pendingVariables.apply({
          addVariable: (spec) => kernel.addVariable(spec),
          record: (body) => log.record(body),
          note: (text) => conversation.note(text),
          named: (d) => conversation.nameVariable(d),
        });
        await this.parts.beforeModelCall();
      },
      beforeCells: async (turn) => {
        await checkpoints?.beforeCells(turn, () => kernel.sharesFilesWithHost());
        kernel.writeGate = checkpoints?.writeGate();
      },
      onToolCallDelta: (index, delta) => mcpWarmer?.push(index, delta),
      beforeCell: (code) => beforeCellHooks(tree.userHooks, this.hookOrigin(), code),
      afterCell: async (code, result) => {
        await afterCellHooks(tree.userHooks, this.hookOrigin(), code, result);
        return tree.approvals.afterCell(id);
      },
    };
  }

  /** Where this agent's hooks come from: the same for its whole life, so made once, not per cell. */
  private origin: HookOrigin | undefined;

  private hookOrigin(): HookOrigin {
    const { id, dir, tree, log } = this.parts;
    this.origin ??= hookOrigin({ id, dir, tree, record: (body) => log.record(body) });
    return this.origin;
  }

  /** Stops the model stream and interrupts the running cell; the turn ends as "interrupted". */
  interrupt(): void {
    this.parts.state.abort.abort();
    this.parts.kernel.interrupt();
  }

  /** Ends this agent's work for good, and its children's. */
  cancel(reason: string): void {
    this.parts.state.cancelled ??= reason;
    this.interrupt();
    this.parts.children.cancelAll(reason);
  }

  /**
   * A person's stop: the running turn ends (model stream and cell) and every running descendant is
   * cancelled, but this agent takes the next message as usual. True when something was running.
   */
  interruptTree(reason: string): boolean {
    const active = this.parts.state.running || this.parts.children.running > 0;
    this.interrupt();
    this.parts.children.cancelAll(reason);
    return active;
  }

  /** submit() or done() in a cell: the turn ends after that cell, with this as its value. */
  setSubmission(payload: SubmitPayload): void {
    this.parts.log.record({
      type: "submit",
      value: payload.json !== undefined ? payload.json : payload.repr,
    });
    this.submission = payload;
  }

  /** What a resume found, told to the model with the next message. */
  noteNext(note: string): void {
    // Two before one message (a resume, then a mode switch): both are said, in order.
    this.notePending = this.notePending ? `${this.notePending}\n\n${note}` : note;
  }

  /**
   * Variables a person sent with a message: staged now (files in the session folder), set in the
   * kernel at the next turn boundary, before the model reads the message. Returns how to name them.
   */
  queueVariables(variables: UserVariable[]): string[] {
    return this.pendingVariables.queue(variables);
  }
}

/** How a submitted value reads as a final answer: JSON when it has one, else its repr. */
function submissionText(payload: SubmitPayload): string {
  if (payload.json === undefined) return payload.repr;
  return typeof payload.json === "string" ? payload.json : JSON.stringify(payload.json, null, 2);
}
