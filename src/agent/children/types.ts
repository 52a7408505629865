// The types between a parent agent and its children (manager.ts tracks them, launch.ts starts
// one, result.ts keeps what is left of one that ended), in a module of their own so that those
// can name them without importing each other.

import type { PermissionMode } from "../../config/permission-mode.js";
import type { ModelClient } from "../../llm/types.js";
import type { JournalBody, SpendRecord } from "../../session/types.js";
import type { Budget } from "../budget/budget.js";
import type { TurnOutcome } from "../core/loop.js";
import type { AgentTree } from "../core/tree.js";
import type { VariableSpec } from "../core/variables.js";
import type { AgentSpec } from "./specs.js";

/** What a parent needs of a child's own children (ChildManager's, named here so this module needs not it). */
export interface OwnChildren {
  /** Its parent has ended: it starts nothing more. */
  retire(): void;
  descendant(id: string): Descendant | undefined;
}

/** What a parent needs of a child agent. */
export interface ChildAgent {
  readonly id: string;
  run(task: string): Promise<TurnOutcome>;
  cancel(reason: string): void;
  deliver(from: string, text: string): void;
  close(): Promise<void>;
  spent(): SpendRecord;
  /** The last cell output or text, for error reports. */
  lastOutput(): string;
  /** Its own children (a person may reach any agent of the tree): its ChildManager. */
  readonly children: OwnChildren;
}

/** A descendant found by id, and what a person may do with it. */
export interface Descendant {
  status: ChildStatus;
  /** A person's message, read by the child at its next turn boundary (journaled by its parent). */
  deliver(text: string): void;
  cancel(reason: string): void;
}

export interface ChildParams {
  id: string;
  dir: string;
  name: string;
  task: string;
  depth: number;
  parentId: string;
  client: ModelClient;
  budget: Budget;
  variables: VariableSpec[];
  spec?: AgentSpec;
  /** A kernel URI (rlm.spawn(..., kernel=...), the spec's `kernel:`); default: the parent's. */
  kernel?: string;
  /** Its permission mode: what it asked for (rlm(..., mode=...), its spec's `mode:`), never wider than the parent's. */
  mode: PermissionMode;
}

/** What a child sees of its parent agent: where children live and how to make one. */
export interface ParentAgent {
  readonly id: string;
  readonly dir: string;
  readonly depth: number;
  readonly tree: AgentTree;
  readonly budget: Budget;
  /** Its permission mode now: its children's can only be narrower. */
  readonly mode: PermissionMode;
  record(body: JournalBody): unknown;
  newChild(params: ChildParams): ChildAgent;
}

export type ChildStatus = "running" | "done" | "failed" | "cancelled";
