import { rmSync } from "node:fs";
import { join } from "node:path";
import type { ModelClient } from "../llm/types.js";
import { newSessionId } from "../session/index.js";
import type { JournalBody, SpendRecord } from "../session/types.js";
import type { Budget } from "./budget.js";
import { asRecord, HostRequestError, optionalString, requiredString } from "./host-errors.js";
import { checkKernelUri } from "./kernel-target.js";
import type { TurnOutcome } from "./loop.js";
import type { AgentSpec } from "./specs.js";
import type { AgentTree } from "./tree.js";
import type { VariableSpec } from "./variables.js";

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
  /** Its own children (a person may reach any agent of the tree). */
  readonly children: ChildManager;
}

/** A descendant found by id, and what a person may do with it. */
export interface Descendant {
  id: string;
  name: string;
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
}

/** The parent side: where children live and how to make one. */
export interface ChildHost {
  readonly id: string;
  readonly dir: string;
  readonly depth: number;
  readonly tree: AgentTree;
  readonly budget: Budget;
  readonly client: ModelClient;
  record(body: JournalBody): unknown;
  newChild(params: ChildParams): ChildAgent;
}

export type ChildStatus = "running" | "done" | "failed" | "cancelled";

/** A child's end as Python decodes it (see python/relm/agents.py `_decode`). */
export type ChildReply =
  | {
      id: string;
      status: "done";
      value:
        | { kind: "text"; text: string }
        | { kind: "json"; value: unknown }
        | { kind: "pickle"; path: string; repr: string };
    }
  | { id: string; status: "failed" | "cancelled"; reason: string; last_output: string; budget: boolean };

interface ChildRecord {
  id: string;
  name: string;
  label?: string;
  task: string;
  model: string;
  startedAt: number;
  agent: ChildAgent;
  status: ChildStatus;
  reply?: ChildReply;
  done: Promise<ChildReply>;
}

/** A packed variable from Python: described there, pickled to a file the child's kernel loads. */
interface PackedVariable {
  name: string;
  type: string;
  size: string;
  preview: string;
  pickle: string;
}

const PREVIEW = 200;
const LABEL_CHARS = 60;

/**
 * The children of one agent: spawning them (each with its own kernel, journal and budget inside the
 * parent's), waiting, messaging, cancelling, and reporting their ends to the parent's journal.
 */
export class ChildManager {
  private readonly records = new Map<string, ChildRecord>();
  private counter = 0;

  constructor(private parent: ChildHost) {}

  /**
   * The agent that owns these children has ended (and so have they): nothing is spawned here any more,
   * and its session, kernel and journal are let go. The records stay, for rlm.agents() and lookups.
   */
  retire(): void {
    this.parent = new RetiredHost(this.parent.id);
  }

  spawn(raw: unknown): { id: string; name: string } {
    const params = asRecord(raw, "rlm.spawn");
    const name = optionalString(params, "name");
    const record = this.start(requiredString(params, "task"), {
      name,
      label: name,
      spec: optionalString(params, "spec"),
      model: optionalString(params, "model"),
      kernel: optionalString(params, "kernel"),
      variables: this.variables(params.variables, true),
    });
    return { id: record.id, name: record.name };
  }

  async wait(raw: unknown): Promise<ChildReply | { id: string; status: "running" }> {
    const params = asRecord(raw, "rlm.wait");
    const record = this.find(params.id);
    const timeout = params.timeout;
    if (typeof timeout !== "number") return record.done;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<{ id: string; status: "running" }>((resolve) => {
      timer = setTimeout(() => resolve({ id: record.id, status: "running" }), Math.max(0, timeout * 1000));
    });
    try {
      return await Promise.race([record.done, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  status(raw: unknown): { id: string; status: ChildStatus } {
    const record = this.find(asRecord(raw, "rlm.status").id);
    return { id: record.id, status: record.status };
  }

  send(raw: unknown): null {
    const params = asRecord(raw, "rlm.send");
    const record = this.find(params.id);
    const text = requiredString(params, "text");
    if (record.status !== "running") {
      throw new HostRequestError(
        `child agent ${record.id} has already ${record.status}; it cannot take messages`,
        "usage",
      );
    }
    this.parent.record({ type: "message", from: this.parent.id, to: record.id, text });
    record.agent.deliver("parent", text);
    return null;
  }

  cancel(raw: unknown): null {
    const record = this.find(asRecord(raw, "rlm.cancel").id);
    if (record.status === "running") record.agent.cancel("cancelled by its parent");
    return null;
  }

  list(): Record<string, unknown>[] {
    return [...this.records.values()].map((r) => {
      const spent = r.agent.spent();
      return {
        id: r.id,
        name: r.name,
        status: r.status,
        task: r.task.length > 120 ? `${r.task.slice(0, 119)}…` : r.task,
        model: r.model,
        turns: spent.turns,
        tokens: spent.tokens,
        cost: spent.cost,
        elapsed: Math.round((Date.now() - r.startedAt) / 100) / 10,
      };
    });
  }

  /** One child per item, at most `max_parallel` at once; results in input order. */
  async map(raw: unknown): Promise<{ results: ChildReply[] }> {
    const params = asRecord(raw, "rlm.map");
    const task = requiredString(params, "task");
    const shared = this.variables(params.shared, false);
    const items = Array.isArray(params.children) ? params.children : [];
    const perItem = items.map((c) => this.variables(asRecord(c, "rlm.map child").variables, true));
    const limit =
      typeof params.max_parallel === "number" && params.max_parallel > 0 ? params.max_parallel : 8;
    const failFast = params.fail_fast !== false;
    const spec = optionalString(params, "spec");
    const model = optionalString(params, "model");
    const kernel = optionalString(params, "kernel");

    const results: ChildReply[] = new Array(perItem.length);
    const running = new Set<ChildRecord>();
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (next < perItem.length) {
        const i = next++;
        if (failed) {
          results[i] = {
            id: "",
            status: "cancelled",
            reason: "not started: an earlier item failed",
            last_output: "",
            budget: false,
          };
          for (const v of perItem[i] ?? [])
            if ("pickle" in v.source) rmSync(v.source.pickle, { force: true });
          continue;
        }
        const record = this.start(task, {
          name: `${spec ?? "map"}-${i}`,
          label: labelOf(perItem[i]?.find((v) => v.name === "item")?.description),
          spec,
          model,
          kernel,
          variables: [...shared, ...(perItem[i] as VariableSpec[])],
        });
        running.add(record);
        const reply = await record.done;
        running.delete(record);
        results[i] = reply;
        if (reply.status !== "done" && failFast && !failed) {
          failed = true;
          for (const other of running) other.agent.cancel("cancelled: another item of rlm.map failed");
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(limit, perItem.length) }, worker));
    } finally {
      // Every child has loaded (or will never load) the shared inputs: they are ours to remove.
      for (const v of shared) if ("pickle" in v.source) rmSync(v.source.pickle, { force: true });
    }
    return { results };
  }

  /** Running children a message to `to` reaches: one by name or id, or every one for "all". */
  recipients(
    to: string,
  ): { id: string; name: string; deliver(from: string, text: string): void }[] | undefined {
    const running = [...this.records.values()].filter((r) => r.status === "running");
    const chosen = to === "all" ? running : running.filter((r) => r.id === to || r.name === to);
    if (chosen.length === 0) {
      const ended = [...this.records.values()].find((r) => r.id === to || r.name === to);
      if (ended) throw new HostRequestError(`send(): child ${to} has already ${ended.status}`, "usage");
      return to === "all" ? [] : undefined;
    }
    return chosen.map((r) => ({
      id: r.id,
      name: r.name,
      deliver: (from, text) => r.agent.deliver(from, text),
    }));
  }

  /** Cancels every running child and waits until all of them (and their kernels) are gone. */
  async closeAll(reason: string): Promise<void> {
    for (const r of this.records.values()) if (r.status === "running") r.agent.cancel(reason);
    await Promise.all([...this.records.values()].map((r) => r.done));
  }

  cancelAll(reason: string): void {
    for (const r of this.records.values()) if (r.status === "running") r.agent.cancel(reason);
  }

  /** How many children are still running (their own children not counted). */
  get running(): number {
    let n = 0;
    for (const r of this.records.values()) if (r.status === "running") n += 1;
    return n;
  }

  /** Any agent below this one, by id: a child, or a child's child, and so on. */
  descendant(id: string): Descendant | undefined {
    const record = this.records.get(id);
    if (!record) {
      for (const r of this.records.values()) {
        const found = r.agent.children.descendant(id);
        if (found) return found;
      }
      return undefined;
    }
    return {
      id: record.id,
      name: record.name,
      status: record.status,
      deliver: (text) => {
        if (record.status !== "running") {
          throw new HostRequestError(
            `sub-agent ${record.id} has already ${record.status === "done" ? "finished" : record.status}; it cannot take messages`,
            "usage",
          );
        }
        this.parent.record({ type: "message", from: "user", to: record.id, text });
        record.agent.deliver("user", text);
      },
      cancel: (reason) => {
        if (record.status === "running") record.agent.cancel(reason);
      },
    };
  }

  private start(
    task: string,
    opts: {
      name?: string;
      label?: string;
      spec?: string;
      model?: string;
      kernel?: string;
      variables: VariableSpec[];
    },
  ): ChildRecord {
    const parent = this.parent;
    const tree = parent.tree;
    if (parent.depth >= tree.maxDepth) {
      throw new HostRequestError(
        `rlm: no sub-agents at depth ${parent.depth} (--max-depth ${tree.maxDepth}); do this part of the work in this kernel`,
        "depth",
      );
    }
    const stop = parent.budget.check();
    if (stop) throw new HostRequestError(`rlm: ${stop.message}`, "budget");
    const spec = opts.spec ? tree.spec(opts.spec) : undefined;
    const client = tree.client(opts.model ?? spec?.model);
    const kernel = childKernel(opts.kernel, spec);
    const id = newSessionId();
    this.counter += 1;
    const name = opts.name ?? (spec ? `${spec.name}-${this.counter}` : `child-${this.counter}`);
    parent.record({
      type: "child_spawned",
      id,
      name,
      task,
      spec: spec?.name,
      model: client.model,
      label: opts.label,
      variables: opts.variables.map((v) => ({
        name: v.name,
        type: v.description?.type ?? "?",
        size: v.description?.size ?? "?",
      })),
    });
    const agent = parent.newChild({
      id,
      dir: join(parent.dir, "children", id),
      name,
      task,
      depth: parent.depth + 1,
      parentId: parent.id,
      client,
      budget: parent.budget.child(spec?.limits),
      variables: opts.variables,
      spec,
      ...(kernel ? { kernel } : {}),
    });
    const record: ChildRecord = {
      id,
      name,
      label: opts.label,
      task,
      model: client.model,
      startedAt: Date.now(),
      agent,
      status: "running",
      done: undefined as unknown as Promise<ChildReply>,
    };
    record.done = this.supervise(record, task);
    this.records.set(id, record);
    return record;
  }

  private async supervise(record: ChildRecord, task: string): Promise<ChildReply> {
    let outcome: TurnOutcome;
    try {
      outcome = await record.agent.run(task);
    } catch (error) {
      outcome = { status: "error", message: error instanceof Error ? error.message : String(error) };
    }
    const reply = this.replyFor(record, outcome);
    await record.agent.close().catch(() => {});
    record.status = reply.status;
    record.reply = reply;
    this.parent.record({
      type: "child_finished",
      id: record.id,
      name: record.name,
      label: record.label,
      status: reply.status,
      reason: reply.status === "done" ? undefined : reply.reason,
      result: reply.status === "done" ? previewOf(reply.value) : undefined,
      spent: record.agent.spent(),
    });
    // Kept for rlm.agents() and rlm.wait() as long as the parent lives: without this, every child that
    // ever ran stayed in memory with its session, kernel links and sockets (a parent fanning out 4
    // children every 10 s grew by ~20 KB a child).
    record.agent = new EndedChild(record.agent);
    return reply;
  }

  private replyFor(record: ChildRecord, outcome: TurnOutcome): ChildReply {
    const id = record.id;
    switch (outcome.status) {
      case "done": {
        const submitted = outcome.submitted ? (outcome.value as SubmitPayload) : undefined;
        if (!submitted) return { id, status: "done", value: { kind: "text", text: outcome.text } };
        if (submitted.pickle) {
          return {
            id,
            status: "done",
            value: { kind: "pickle", path: submitted.pickle, repr: submitted.repr },
          };
        }
        return { id, status: "done", value: { kind: "json", value: submitted.json ?? null } };
      }
      case "budget":
        return {
          id,
          status: "failed",
          reason: outcome.stop.message,
          last_output: record.agent.lastOutput(),
          budget: true,
        };
      case "interrupted":
        return {
          id,
          status: "cancelled",
          reason: outcome.reason,
          last_output: record.agent.lastOutput(),
          budget: false,
        };
      default:
        return {
          id,
          status: "failed",
          reason: outcome.message,
          last_output: record.agent.lastOutput(),
          budget: false,
        };
    }
  }

  private find(id: unknown): ChildRecord {
    const record = typeof id === "string" ? this.records.get(id) : undefined;
    if (!record) throw new HostRequestError(`no child agent with id ${JSON.stringify(id)}`, "not_found");
    return record;
  }

  private variables(raw: unknown, consume: boolean): VariableSpec[] {
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw)) throw new HostRequestError("variables must be a list", "usage");
    return raw.map((item) => {
      const v = asRecord(item, "variable") as unknown as PackedVariable;
      if (typeof v.name !== "string" || typeof v.pickle !== "string") {
        throw new HostRequestError("each variable needs a name and a pickle file", "usage");
      }
      return {
        name: v.name,
        source: { pickle: v.pickle },
        consume,
        description: { name: v.name, type: String(v.type), size: String(v.size), preview: String(v.preview) },
      };
    });
  }
}

/** What is kept of a child once it has ended: its id, its spend and its (retired) children. */
class EndedChild implements ChildAgent {
  readonly id: string;
  readonly children: ChildManager;
  private readonly spend: SpendRecord;

  constructor(agent: ChildAgent) {
    this.id = agent.id;
    this.spend = agent.spent();
    this.children = agent.children;
    this.children.retire();
  }

  spent(): SpendRecord {
    return this.spend;
  }

  lastOutput(): string {
    return "";
  }

  run(): Promise<TurnOutcome> {
    return Promise.reject(this.gone());
  }

  cancel(): void {}

  deliver(): void {
    throw this.gone();
  }

  async close(): Promise<void> {}

  private gone(): HostRequestError {
    return new HostRequestError(`child agent ${this.id} has ended`, "usage");
  }
}

/** The parent of a retired ChildManager: it keeps the id and refuses to start anything. */
class RetiredHost implements ChildHost {
  readonly depth = Number.POSITIVE_INFINITY;

  constructor(readonly id: string) {}

  get dir(): string {
    return this.refuse();
  }

  get tree(): AgentTree {
    return this.refuse();
  }

  get budget(): Budget {
    return this.refuse();
  }

  get client(): ModelClient {
    return this.refuse();
  }

  record(): undefined {
    return undefined;
  }

  newChild(): ChildAgent {
    return this.refuse();
  }

  private refuse(): never {
    throw new HostRequestError(`agent ${this.id} has ended; it starts no more sub-agents`, "usage");
  }
}

/** What submit() sends from Python (python/relm/api.py). */
export interface SubmitPayload {
  json?: unknown;
  repr: string;
  pickle: string | null;
}

function previewOf(value: Extract<ChildReply, { status: "done" }>["value"]): string {
  const text =
    value.kind === "text" ? value.text : value.kind === "json" ? JSON.stringify(value.value) : value.repr;
  return text.length > PREVIEW ? `${text.slice(0, PREVIEW - 1)}…` : text;
}

/**
 * A map child's label: its item's preview on one line, at most 60 chars. A string item's quotes are
 * dropped, so `'src/a.py'` reads `src/a.py`.
 */
function labelOf(description: { type: string; preview: string } | undefined): string | undefined {
  if (!description) return undefined;
  let text = description.preview.replace(/\s+/g, " ").trim();
  const quoted = /^(['"])(.*)\1$/.exec(text) ?? /^(['"])(.*)…$/.exec(text);
  if (description.type === "str" && quoted) text = quoted[2] as string;
  if (text.length === 0) return undefined;
  return text.length > LABEL_CHARS ? `${text.slice(0, LABEL_CHARS - 1)}…` : text;
}

/** A child's kernel URI: the call's, else its spec's; a bad one is the caller's ValueError. */
function childKernel(uri: string | undefined, spec: AgentSpec | undefined): string | undefined {
  try {
    return checkKernelUri(uri, "rlm kernel=") ?? spec?.kernel;
  } catch (error) {
    throw new HostRequestError(error instanceof Error ? error.message : String(error), "usage");
  }
}
