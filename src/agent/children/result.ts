// What a parent gets back from a child agent: its end as Python decodes it, the `child_finished` line of
// the parent's journal, and what is kept of the child (and of its own children) once it has ended.

import type { PermissionMode } from "../../config/permission-mode.js";
import type { JournalBody, SpendRecord } from "../../session/types.js";
import type { Budget } from "../budget/budget.js";
import type { TurnOutcome } from "../core/loop.js";
import type { AgentTree } from "../core/tree.js";
import { KernelCallError } from "../kernel-api/errors.js";
import type { ChildAgent, OwnChildren, ParentAgent } from "./types.js";

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

/** What submit() sends from Python (python/relm/api.py). */
export interface SubmitPayload {
  json?: unknown;
  repr: string;
  pickle: string | null;
}

const PREVIEW = 200;

/** The reply for a child whose run ended with `outcome`; `lastOutput` goes with a failure. */
export function replyFor(id: string, outcome: TurnOutcome, lastOutput: () => string): ChildReply {
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
      return { id, status: "failed", reason: outcome.stop.message, last_output: lastOutput(), budget: true };
    case "interrupted":
      return { id, status: "cancelled", reason: outcome.reason, last_output: lastOutput(), budget: false };
    default:
      return { id, status: "failed", reason: outcome.message, last_output: lastOutput(), budget: false };
  }
}

/** The parent's journal line for a child that ended. */
export function finishedRecord(
  child: { id: string; name: string; label?: string },
  reply: ChildReply,
  spent: SpendRecord,
): JournalBody {
  return {
    type: "child_finished",
    id: child.id,
    name: child.name,
    label: child.label,
    status: reply.status,
    reason: reply.status === "done" ? undefined : reply.reason,
    result: reply.status === "done" ? previewOf(reply.value) : undefined,
    spent,
  };
}

function previewOf(value: Extract<ChildReply, { status: "done" }>["value"]): string {
  const text =
    value.kind === "text" ? value.text : value.kind === "json" ? JSON.stringify(value.value) : value.repr;
  return text.length > PREVIEW ? `${text.slice(0, PREVIEW - 1)}…` : text;
}

/** What is kept of a child once it has ended: its id, its spend and its (retired) children. */
export class EndedChild implements ChildAgent {
  readonly id: string;
  readonly children: OwnChildren;
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

  private gone(): KernelCallError {
    return new KernelCallError(`child agent ${this.id} has ended`);
  }
}

/** The parent of a retired ChildManager: it keeps the id and refuses to start anything. */
export class RetiredParent implements ParentAgent {
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

  get mode(): PermissionMode {
    return this.refuse();
  }

  record(): undefined {
    return undefined;
  }

  newChild(): ChildAgent {
    return this.refuse();
  }

  private refuse(): never {
    throw new KernelCallError(`agent ${this.id} has ended; it starts no more sub-agents`);
  }
}
