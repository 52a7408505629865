// What a session host says of its session in state.json (what `relm agents` lists without asking the
// host): status and why, last activity, the tree's usage, the plan's progress, requests waiting for a
// person. Kept apart from the host so the host is about turns and clients, not bookkeeping.

import type { Agent } from "../../agent/core/agent.js";
import type { AgentEvent } from "../../agent/core/events.js";
import { lostOnRelease } from "../../agent/kernel-api/unsaved.js";
import { startTimeOf } from "../../config/process.js";
import { type SessionState, type SessionStatus, writeState } from "./state.js";
import { UsageTally } from "./tree-usage.js";

/** What the board reads from the host each time it writes (the title can be set by a first message). */
interface BoardSource {
  readonly home: string;
  readonly title: string;
  readonly cwd: string;
  readonly detached: boolean;
}

export class StateBoard {
  status: SessionStatus = "idle";
  reason: string | undefined;
  /** Requests of the tree's kernels waiting for a person ("needs approval"). */
  waitingApprovals = 0;
  private lastActivity = new Date().toISOString();
  private plan: string | undefined;
  /** The root kernel's variables its last snapshot could not save (`relm agents` names them). */
  private unsaved: string[] = [];
  /** Tokens and cost of the whole tree over the session's life (journals at start, then live events). */
  readonly usage: UsageTally;
  private readonly created: string;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly session: Agent,
    private readonly source: BoardSource,
  ) {
    this.usage = UsageTally.ofTree(session.dir);
    this.created = session.journal.header.created;
  }

  /** Every event of the tree: usage, activity, and the root's own status changes. */
  noteEvent(event: AgentEvent): void {
    this.usage.add(event as { type: string });
    this.lastActivity = new Date().toISOString();
    if (event.agent) return;
    // An `rlm.map` spawns its children in a burst: state.json is rewritten (a file and a rename) when
    // the status changes, and the later spawns only refresh its activity within a second.
    if (event.type === "child_spawned") {
      if (this.status !== "waiting" || this.reason !== undefined) this.set("waiting");
      else this.writeSoon();
    }
    if (event.type === "model_request" && this.status === "waiting") this.set("running");
    // The last background child's end makes an idle session idle in listings again.
    if (event.type === "child_finished" && this.status === "idle") this.writeSoon();
    if (event.type === "model_response") this.writeSoon();
    if (event.type === "plan") {
      // `relm agents` shows the plan's progress (n/m).
      const done = event.steps.filter((s) => s.status === "done").length;
      this.plan = event.steps.length > 0 ? `${done}/${event.steps.length}` : undefined;
      this.writeSoon();
    }
    if (event.type === "snapshot") {
      const unsaved = lostOnRelease(event.skipped);
      if (unsaved.join("\0") !== this.unsaved.join("\0")) {
        this.unsaved = unsaved;
        this.writeSoon();
      }
    }
  }

  set(status: SessionStatus, reason?: string): void {
    this.status = status;
    this.reason = reason;
    this.write();
  }

  /** Within a second: for changes that come in bursts (each model response, plan steps). */
  writeSoon(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.write();
    }, 1000);
    this.timer.unref();
  }

  cancelWrite(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * What state.json says: tokens and cost of the whole tree over the session's life. A root whose own
   * loop is idle while background children work (rlm.spawn, not waited for) is listed as running, with
   * how many: it is not waiting for work, and what it started may still message it or spend.
   */
  snapshot(pid = process.pid): SessionState {
    const atWork = this.status === "idle" ? this.session.children.running : 0;
    // Work before a resume included (the budget counts only what this process spent); null cost once any
    // call was unpriced.
    const { title, cwd, detached } = this.source;
    return {
      id: this.session.id,
      title,
      cwd,
      created: this.created,
      status: atWork > 0 ? "running" : this.status,
      reason: this.reason,
      ...(atWork > 0 ? { childrenAtWork: atWork } : {}),
      lastActivity: this.lastActivity,
      ...this.usage.totals(),
      ...(this.plan ? { plan: this.plan } : {}),
      pid,
      pidStarted: startTimeOf(pid),
      detached,
      ...(this.waitingApprovals ? { approvals: this.waitingApprovals } : {}),
      ...(this.unsaved.length ? { unsaved: this.unsaved } : {}),
    };
  }

  /** `pid`: the process that holds the session now (a stub, after a handoff). */
  write(pid?: number): void {
    try {
      writeState(this.source.home, this.snapshot(pid));
    } catch {
      // The journal is the record; a state file that could not be written is rebuilt from it.
    }
  }
}
