import type { TurnOutcome } from "../core/loop.js";
import { asRecord, KernelCallError, optionalString, requiredString } from "../kernel-api/errors.js";
import { hookOrigin } from "../user-hooks/points.js";
import { type LaunchedChild, type LaunchOptions, launchChild, packedVariables } from "./launch.js";
import { mapChildren } from "./map.js";
import { type ChildReply, EndedChild, finishedRecord, RetiredParent, replyFor } from "./result.js";
import type { ChildStatus, Descendant, ParentAgent } from "./types.js";

export type { SubmitPayload } from "./result.js";
export type { ChildAgent, ChildParams, ParentAgent } from "./types.js";

/** A child as its parent tracks it: what it was started with, its state, and its end once known. */
interface ChildRecord extends LaunchedChild {
  startedAt: number;
  status: ChildStatus;
  done: Promise<ChildReply>;
  /** Settles once the child (its kernel, its journal) is closed: after `done` for a child that finished. */
  closed?: Promise<void>;
}

/**
 * The children of one agent, as it tracks them: the calls Python makes about them (spawn, wait, status,
 * send, cancel, list, map), a person's reach into the tree, and each child's end reported to the
 * parent's journal. Starting one is launch.ts; what a child hands back is result.ts.
 */
export class ChildManager {
  private readonly records = new Map<string, ChildRecord>();
  private counter = 0;

  constructor(private parent: ParentAgent) {}

  /**
   * The agent that owns these children has ended (and so have they): nothing is spawned here any more,
   * and its session, kernel and journal are let go. The records stay, for rlm.agents() and lookups.
   */
  retire(): void {
    this.parent = new RetiredParent(this.parent.id);
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
      mode: optionalString(params, "mode"),
      variables: packedVariables(params.variables, true),
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
      throw new KernelCallError(
        `child agent ${record.id} has already ${endedAs(record.status)}; it cannot take messages`,
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

  /** One child per item, at most `max_parallel` at once; results in input order (map.ts). `stop`: the
   * cell waiting in the call was interrupted (rlm.map_cancel, kernel-api/calls.ts). */
  map(raw: unknown, stop?: AbortSignal): Promise<{ results: ChildReply[] }> {
    return mapChildren(raw, (task, opts) => this.start(task, opts), stop);
  }

  /** Running children a message to `to` reaches: one by name or id, or every one for "all". */
  recipients(
    to: string,
  ): { id: string; name: string; deliver(from: string, text: string): void }[] | undefined {
    const running = [...this.records.values()].filter((r) => r.status === "running");
    const chosen = to === "all" ? running : running.filter((r) => r.id === to || r.name === to);
    if (chosen.length === 0) {
      const ended = [...this.records.values()].find((r) => r.id === to || r.name === to);
      if (ended) throw new KernelCallError(`send(): child ${to} has already ${endedAs(ended.status)}`);
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
    this.cancelAll(reason);
    await Promise.all([...this.records.values()].map((r) => r.done));
    await Promise.all([...this.records.values()].map((r) => r.closed));
  }

  cancelAll(reason: string): void {
    for (const r of this.records.values()) if (r.status === "running") r.agent.cancel(reason);
  }

  /** How many children are still running (their own children not counted). */
  get running(): number {
    return [...this.records.values()].filter((r) => r.status === "running").length;
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
      status: record.status,
      deliver: (text) => {
        if (record.status !== "running") {
          throw new KernelCallError(
            `sub-agent ${record.id} has already ${endedAs(record.status)}; it cannot take messages`,
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

  private start(task: string, opts: LaunchOptions): ChildRecord {
    const launched = launchChild(this.parent, task, opts, () => ++this.counter);
    const record: ChildRecord = {
      ...launched,
      startedAt: Date.now(),
      status: "running",
      done: undefined as unknown as Promise<ChildReply>,
    };
    record.done = this.supervise(record, task);
    this.records.set(record.id, record);
    return record;
  }

  /** Runs the child's task to its end, then hands its reply back and lets the child go. */
  private async supervise(record: ChildRecord, task: string): Promise<ChildReply> {
    let outcome: TurnOutcome;
    const hooks = this.parent.tree.userHooks;
    // Only when hooks are configured: a parent built for a test (or a tree without hooks) needs no origin.
    const origin = hooks ? hookOrigin(this.parent) : undefined;
    const about = { agent_id: record.id, agent_name: record.name, task };
    if (hooks && origin) await hooks.fire("SubagentStart", origin, about, record.name);
    try {
      outcome = await record.agent.run(task);
    } catch (error) {
      outcome = { status: "error", message: error instanceof Error ? error.message : String(error) };
    }
    const reply = replyFor(record.id, outcome, () => record.agent.lastOutput());
    if (hooks && origin)
      await hooks.fire("SubagentStop", origin, { ...about, status: reply.status }, record.name);
    // A child that finished hands its reply back at once and closes (its kernel's shutdown, ~10 ms of
    // a sequential rlm() at load 9) while the parent goes on; closeAll() still waits for it. One that
    // failed or was cancelled is gone before its parent hears of it, as before.
    const closing = record.agent.close().catch(() => {});
    if (reply.status !== "done") await closing;
    record.status = reply.status;
    this.parent.record(finishedRecord(record, reply, record.agent.spent()));
    const agent = record.agent;
    record.closed = closing.then(() => {
      // Kept for rlm.agents() and rlm.wait() as long as the parent lives: without this, every child that
      // ever ran stayed in memory with its session, kernel links and sockets (a parent fanning out 4
      // children every 10 s grew by ~20 KB a child).
      record.agent = new EndedChild(agent);
    });
    return reply;
  }

  private find(id: unknown): ChildRecord {
    const record = typeof id === "string" ? this.records.get(id) : undefined;
    if (!record) throw new KernelCallError(`no child agent with id ${JSON.stringify(id)}`, "not_found");
    return record;
  }
}

/** How an ended child's status reads after "has already": "done" is no past participle. */
function endedAs(status: ChildStatus): string {
  return status === "done" ? "finished" : status === "cancelled" ? "been cancelled" : status;
}
