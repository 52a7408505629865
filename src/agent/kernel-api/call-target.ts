import type { PermissionMode } from "../../config/permission-mode.js";
import type { CellImage } from "../../kernel/types.js";
import type { ModelClient } from "../../llm/types.js";
import type { Journal } from "../../session/index.js";
import type { JournalBody } from "../../session/types.js";
import type { Budget } from "../budget/budget.js";
import type { ChildManager, SubmitPayload } from "../children/manager.js";
import type { Mailbox, Received } from "../children/messaging.js";
import type { AgentLog } from "../core/log.js";
import type { AgentModel } from "../core/model.js";
import type { AgentTree, TreeOptions } from "../core/tree.js";
import type { TurnRunner } from "../core/turns.js";
import type { AgentGoal } from "../gates/goal.js";
import type { KernelCallsAgent } from "./calls.js";
import type { AgentKernel } from "./kernel.js";

/** The collaborators of one agent that the calls from its kernel reach. */
interface CallTargetParts {
  readonly id: string;
  readonly dir: string;
  readonly tree: AgentTree;
  readonly budget: Budget;
  readonly log: AgentLog;
  readonly model: AgentModel;
  readonly goal: AgentGoal;
  readonly turns: TurnRunner;
  readonly kernel: AgentKernel;
  readonly children: ChildManager;
  readonly mailbox: Mailbox;
  /** The agent's permission mode now (the root's can be switched). */
  readonly mode: () => PermissionMode;
  /** The agent that started this one (send(..., "parent")); none for the root. */
  readonly parent: { readonly id: string; deliver(from: string, text: string): void } | undefined;
}

/**
 * An agent as the calls from Python in its kernel see it (calls.ts): submit(), rlm.*, llm(), send(),
 * goal.*, look() and the rest, each answered by the collaborator that owns it. One per agent, for its
 * whole life (learning's harness-api.ts keeps a cell's pending refinements by it).
 */
export class KernelCallsTarget implements KernelCallsAgent {
  readonly id: string;
  readonly dir: string;
  readonly tree: AgentTree;
  readonly budget: Budget;
  readonly journal: Journal;
  readonly children: ChildManager;

  constructor(private readonly parts: CallTargetParts) {
    this.id = parts.id;
    this.dir = parts.dir;
    this.tree = parts.tree;
    this.budget = parts.budget;
    this.journal = parts.log.journal;
    this.children = parts.children;
  }

  get client(): ModelClient {
    return this.parts.model.current;
  }

  /** The agent's permission mode now (request() asks for what it does not allow). */
  get mode(): PermissionMode {
    return this.parts.mode();
  }

  /** The sandbox of the agent's mode (undefined in full mode): fetch() follows its network. */
  get sandbox() {
    return this.tree.permissions.sandboxFor(this.parts.mode());
  }

  clientFor(model?: string | null): ModelClient {
    return this.parts.model.named(model);
  }

  record(body: JournalBody): unknown {
    return this.parts.log.record(body);
  }

  setSubmission(payload: SubmitPayload): void {
    this.parts.turns.setSubmission(payload);
  }

  /** look(): an image for the result of the cell running now (look.ts). */
  attachImage(image: CellImage): boolean {
    return this.parts.kernel.attachImage(image);
  }

  get scheduler(): TreeOptions["scheduler"] {
    return this.tree.options.scheduler;
  }

  /** send() to another session: refused by the host layer from a sandboxed agent to an unsandboxed session. */
  get sendToSession(): ((to: string, from: string, text: string) => Promise<void>) | undefined {
    const send = this.tree.options.sendToSession;
    return send && ((to, from, text) => send(to, from, text, this.sandbox !== undefined));
  }

  get parentAgent(): CallTargetParts["parent"] {
    return this.parts.parent;
  }

  childRecipients(to: string) {
    return this.children.recipients(to);
  }

  takeReceived(): Received[] {
    return this.parts.mailbox.takeReceived();
  }

  get goal(): string | undefined {
    return this.parts.goal.text;
  }

  setGoal(text: string): void {
    this.parts.goal.set(text);
  }

  get goalDone(): boolean {
    return this.parts.goal.done;
  }

  set goalDone(done: boolean) {
    this.parts.goal.done = done;
  }

  get progressNotes(): number {
    return this.parts.goal.progressNotes;
  }

  set progressNotes(n: number) {
    this.parts.goal.progressNotes = n;
  }
}
