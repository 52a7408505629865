// What a plugin attaches to an agent tree without agent/ knowing what it is: a section of every system
// prompt, sub-agent specs it keeps, the kernel's calls under one method prefix, callbacks at points of
// the root agent's work, and `tree.lessons.teach` to hand a lesson it applied mid-session to every running
// agent of the tree (lessons.ts). The self-refining harness (src/learning/) is the one plugin; the
// composition root (src/cli/setup.ts) sets it in TreeOptions.hooks; without it an agent has none of this.

import type { ModelClient } from "../llm/types.js";
import type { JournalBody, JournalEvent } from "../session/types.js";
import type { Budget } from "./budget/budget.js";
import type { GatesRun } from "./gates/gates.js";
import type { Lesson } from "./lessons.js";

export type { Lesson };

/** A sub-agent spec a plugin keeps (the harness's entries of kind agent); a spec file of the same name wins. */
interface KeptSpec {
  readonly name: string;
  readonly description: string;
  readonly instructions: string;
  /** Where it is kept, for messages: "harness entry ENTRY (SCOPE scope)". */
  readonly entryId: string;
  readonly scope: string;
}

/** The agent whose kernel made a call, as a plugin's handler of kernel calls sees it. */
export interface KernelCaller {
  readonly id: string;
  readonly dir: string;
  /** The model it calls now (`current`; switchable with /model). */
  readonly model: { readonly current: ModelClient };
  readonly budget: Budget;
  readonly journal: { readonly path: string; readonly lastN: number };
  readonly tree: HookedTree;
  record(body: JournalBody): unknown;
}

/** An agent's tree (AgentTree), as the plugin sees it. */
interface HookedTree {
  readonly options: {
    readonly cwd: string;
    readonly home: string;
    readonly compaction?: { readonly windows?: Record<string, number> };
  };
  client(model?: string | null): ModelClient;
  /** The plugin's prompt section of new agents' prompts: a learning pass that reloads it renews it. */
  promptSection: string | undefined;
  /** Hands a lesson applied just now to every running agent of the tree (lessons.ts). */
  readonly lessons: { teach(lesson: Lesson): string[] };
}

/** The root agent of a tree, as the hooks made for it see it. */
export interface HookedRoot {
  readonly id: string;
  readonly dir: string;
  readonly cwd: string;
  readonly home: string;
  readonly budget: Budget;
  readonly journal: { readonly path: string };
  readonly tree: HookedTree;
  /** Model calls of the root so far. */
  readonly turns: number;
  /** The running turn's signal (aborted when a person interrupts it); undefined between turns. */
  readonly signal: AbortSignal | undefined;
  record(body: JournalBody): JournalEvent;
  /** `model` on the session's endpoint; the root's current model when none is named. */
  clientFor(model?: string | null): ModelClient;
}

/** Callbacks at points of the root agent's work; each is awaited where it is called and never throws. */
export interface RootHooks {
  /** Before each model call of the root, after a compaction it needed. */
  beforeModelCall?(): Promise<void>;
  /** A compaction happened and the root's prompt is about to be rebuilt (with `TreeHooks.prompt.reload`). */
  atCompaction?(): Promise<void>;
  /** After each gates run of an autonomous run that did not end it (`event`: its gate_run journal event). */
  afterGateRun?(run: GatesRun, event?: number): Promise<void>;
  /**
   * Called by the session host that runs the root where its work can be judged: after each gates run of
   * an autonomous run, when such a run ends, and when the session closes.
   */
  judgeWork?(): void;
  /**
   * The session host is about to close the session (before its last `judgeWork`): background work of the
   * plugin (a replay check) ends first — finishing, or interrupted when `stop` (the session was stopped).
   */
  closing?(stop: boolean): Promise<void>;
  /**
   * Methods of the session host (JSON-RPC from front ends) the plugin answers, by name: the host asks
   * here for a method it does not know. A handler throws the host's RpcError to refuse.
   */
  readonly hostMethods?: Readonly<Record<string, (params: Record<string, unknown>) => unknown>>;
}

/** Everything a plugin attaches to one agent tree. */
export interface TreeHooks {
  /**
   * A section of every agent's system prompt, rendered once at the start of the tree so the prompt stays
   * byte-stable; `reload` renders it as it is now for the root session's folder, which a compaction uses
   * (it starts a new cache prefix anyway, so that is where a change takes effect).
   */
  readonly prompt?: { readonly block: string; reload(rootSessionDir: string): string };
  /** Sub-agent specs it keeps, found by name after the project's `.relm/agents/`. */
  readonly specs?: readonly KeptSpec[];
  /** Answers the kernel's calls whose method starts with `prefix` (python/relm/harness.py: "harness."). */
  readonly kernelCalls?: {
    readonly prefix: string;
    handle(agent: KernelCaller, method: string, params: unknown): Promise<unknown>;
  };
  /**
   * A sandbox opened while the project had no `.relm/`, so sandboxed code can write what the plugin
   * would put there: it must write nothing there until the returned function is called.
   */
  lockProject?(projectDir: string): () => void;
  /** The hooks of the tree's root agent, made once (`events`: a resumed session's journal, else none). */
  root?(agent: HookedRoot, events: readonly JournalEvent[]): RootHooks;
}
