// The session host's commands for front ends (the terminal UI above all): everything a person can do to
// a running session besides attach/stop, as JSON-RPC methods. The line-mode slash commands do the same.

import { join } from "node:path";
import type { AutonomySettings } from "../agent/autonomy.js";
import type { AgentSession } from "../agent/session.js";
import { checkUserVariables, type UserVariable, VariableInputError } from "../agent/session-variables.js";
import { JOURNAL_FILE, readJournal } from "../session/index.js";
import { type SessionInfo, sessionInfo } from "./info.js";
import { RPC, RpcError } from "./rpc.js";
import type { SessionStatus } from "./state.js";
import { descendantDir, type UsageTally } from "./tree-usage.js";

/** What the commands need of the host that runs the session. */
export interface CommandHost {
  readonly id: string;
  readonly home: string;
  readonly session: AgentSession;
  readonly title: string;
  readonly cwd: string;
  readonly currentStatus: SessionStatus;
  readonly statusReason: string | undefined;
  /** A turn (or an autonomous run of turns) is in progress. */
  readonly busy: boolean;
  readonly queued: number;
  readonly usage: UsageTally;
  readonly autonomy: AutonomySettings | undefined;
  /** Whether autonomous mode set from here may assume nobody answers (a detached, non-interactive host). */
  readonly unattended: boolean;
  setAutonomy(settings: AutonomySettings | undefined): void;
  deliver(message: { from: string; text: string; variables?: UserVariable[] }): void;
  /** Stops the running turn and every running sub-agent; true when something was running. */
  interrupt(): boolean;
}

const MAX_GOAL_CHARS = 4000;
const MAX_GATES = 20;

type Params = Record<string, unknown>;

export class HostCommands {
  constructor(private readonly host: CommandHost) {}

  /** Answers one method; unknown methods are RPC.methodNotFound. */
  async call(method: string, p: Params): Promise<unknown> {
    switch (method) {
      case "info":
        return this.info();
      case "send":
        return this.send(p);
      case "interrupt":
        return { interrupted: this.host.interrupt() };
      case "model":
        return this.model(p);
      case "goal":
        return this.goal(p);
      case "autonomy":
        return this.autonomy(p);
      case "compact":
        this.refuseWhileBusy("compact");
        // `compacted` false: nothing was replaced (the message says why); true: the journal's
        // compaction event, which front ends show, says what.
        return await this.host.session.compact(true);
      case "checkpoints": {
        const list = await this.host.session.listCheckpoints();
        return "error" in list ? { checkpoints: [], unavailable: list.error } : { checkpoints: list };
      }
      case "undo":
        return this.undo(p);
      case "heartbeat":
        return this.heartbeat(p);
      case "child.cancel":
        return this.childCancel(p);
      case "child.send":
        return this.childSend(p);
      case "child.events":
        return this.childEvents(p);
      default: {
        // What the tree's plugin answers (src/agent/hooks.ts): learning's refine, refine.apply and learn.
        const plugin = this.host.session.hooks?.hostMethods;
        const handler = plugin && Object.hasOwn(plugin, method) ? plugin[method] : undefined;
        if (handler) return handler(p);
        throw new RpcError(RPC.methodNotFound, `unknown method ${method}`);
      }
    }
  }

  info(): SessionInfo {
    const h = this.host;
    return sessionInfo({
      session: h.session,
      title: h.title,
      cwd: h.cwd,
      status: h.currentStatus,
      reason: h.statusReason,
      busy: h.busy,
      queued: h.queued,
      usage: h.usage,
      autonomy: h.autonomy,
    });
  }

  private send(p: Params): { delivered: "now" | "at the next turn boundary" } {
    if (typeof p.text !== "string") throw new RpcError(RPC.invalidParams, "send needs a text");
    let variables: UserVariable[];
    try {
      variables = checkUserVariables(p.variables);
    } catch (error) {
      if (error instanceof VariableInputError) throw new RpcError(RPC.invalidParams, error.message);
      throw error;
    }
    const busy = this.host.busy;
    this.host.deliver({ from: "user", text: p.text, variables });
    return { delivered: busy ? "at the next turn boundary" : "now" };
  }

  private model(p: Params): { model: string; provider: string } {
    const session = this.host.session;
    if (p.name !== undefined) {
      const name = p.name;
      if (typeof name !== "string" || !/^[^\s\p{Cc}]{1,200}$/u.test(name)) {
        throw new RpcError(
          RPC.invalidParams,
          "model: name must be a model name (no spaces, at most 200 chars)",
        );
      }
      try {
        session.setModel(name);
      } catch (error) {
        throw new RpcError(RPC.refused, `model: ${(error as Error).message}`);
      }
    }
    return { model: session.client.model, provider: session.client.provider };
  }

  private goal(p: Params): { goal: string | null; done: boolean } {
    const session = this.host.session;
    if (p.text !== undefined) {
      const text = typeof p.text === "string" ? p.text.trim() : "";
      if (text.length === 0 || text.length > MAX_GOAL_CHARS) {
        throw new RpcError(RPC.invalidParams, `goal: text must be 1 to ${MAX_GOAL_CHARS} characters`);
      }
      session.setGoal(text);
    }
    return { goal: session.goal ?? null, done: session.goalDone };
  }

  private autonomy(p: Params): { autonomy: { gates: string[] } | null } {
    const mode = p.mode ?? "status";
    if (mode === "on") {
      const gates = p.gates ?? [];
      if (
        !Array.isArray(gates) ||
        gates.length > MAX_GATES ||
        !gates.every((g) => typeof g === "string" && g.trim() !== "")
      ) {
        throw new RpcError(
          RPC.invalidParams,
          `autonomy: gates must be a list of at most ${MAX_GATES} shell commands (non-empty strings)`,
        );
      }
      this.host.setAutonomy({ gates: gates as string[], unattended: this.host.unattended });
    } else if (mode === "off") this.host.setAutonomy(undefined);
    else if (mode !== "status") {
      throw new RpcError(RPC.invalidParams, 'autonomy: mode must be "on", "off" or "status"');
    }
    const a = this.host.autonomy;
    return { autonomy: a ? { gates: [...a.gates] } : null };
  }

  private async undo(p: Params) {
    let turn: number | undefined;
    if (p.turn !== undefined) {
      if (typeof p.turn !== "number" || !Number.isSafeInteger(p.turn) || p.turn < 0) {
        throw new RpcError(RPC.invalidParams, "undo: turn must be a whole number (see checkpoints)");
      }
      turn = p.turn;
    }
    this.refuseWhileBusy("undo");
    const result = await this.host.session.undo(turn);
    if ("error" in result) return { error: result.error };
    return {
      turn: result.checkpoint.turn,
      changed: result.changed,
      removed: result.removed,
      backup: result.backup,
    };
  }

  /** `/heartbeat`: every + prompt adds one, off cancels them all, nothing lists them. */
  private heartbeat(p: Params) {
    const scheduler = this.host.session.tree.options.scheduler;
    if (!scheduler) throw new RpcError(RPC.refused, "this session has no scheduler");
    const list = () => scheduler.list() as { id: string; timing: string; prompt: string; next?: string }[];
    if (p.off === true) {
      const ids = list().map((j) => j.id);
      for (const id of ids) scheduler.cancel(id);
      return { cancelled: ids.length, jobs: list() };
    }
    if (p.every === undefined && p.prompt === undefined) return { jobs: list() };
    if (typeof p.every !== "string" || typeof p.prompt !== "string" || p.prompt.trim() === "") {
      throw new RpcError(
        RPC.invalidParams,
        'heartbeat needs every (like "10m") and a prompt, or off: true to cancel them all',
      );
    }
    try {
      const job = scheduler.add({ every: p.every }, p.prompt) as { id: string; timing: string };
      return { job, jobs: list() };
    } catch (error) {
      throw new RpcError(RPC.invalidParams, `heartbeat: ${(error as Error).message}`);
    }
  }

  private childCancel(p: Params): { cancelled: boolean; status: string } {
    const child = this.descendant(p, "child.cancel");
    const running = child.status === "running";
    child.cancel("cancelled by the user");
    return { cancelled: running, status: running ? "cancelled" : child.status };
  }

  private childSend(p: Params): { delivered: true } {
    const child = this.descendant(p, "child.send");
    if (typeof p.text !== "string" || p.text === "")
      throw new RpcError(RPC.invalidParams, "child.send needs a text");
    if (Buffer.byteLength(p.text) > 16 * 1024)
      throw new RpcError(RPC.invalidParams, "message too long: at most 16384 bytes");
    try {
      child.deliver(p.text);
    } catch (error) {
      throw new RpcError(RPC.refused, (error as Error).message);
    }
    return { delivered: true };
  }

  /** A descendant's journal, read from its folder: finished children and those of earlier hosts too. */
  private childEvents(p: Params) {
    const id = childId(p, "child.events");
    const after = p.after === undefined ? 0 : p.after;
    if (typeof after !== "number" || !Number.isInteger(after) || after < 0) {
      throw new RpcError(RPC.invalidParams, "child.events: after must be a whole number >= 0");
    }
    const dir = descendantDir(this.host.session.dir, id);
    if (!dir) throw this.unknownChild(id);
    let journal: ReturnType<typeof readJournal>;
    try {
      journal = readJournal(join(dir, JOURNAL_FILE));
    } catch (error) {
      throw new RpcError(
        RPC.refused,
        `child.events: the journal of ${id} cannot be read: ${(error as Error).message}`,
      );
    }
    return {
      header: journal.header,
      events: journal.events.filter((e) => e.n > after).map((e) => ({ ...e, agent: id })),
    };
  }

  private descendant(p: Params, method: string) {
    const id = childId(p, method);
    const found = this.host.session.children.descendant(id);
    if (found) return found;
    if (descendantDir(this.host.session.dir, id)) {
      throw new RpcError(RPC.refused, `${method}: sub-agent ${id} has ended (it ran under an earlier host)`);
    }
    throw this.unknownChild(id);
  }

  private unknownChild(id: string): RpcError {
    return new RpcError(RPC.invalidParams, `no sub-agent ${id} in session ${this.host.id}`);
  }

  private refuseWhileBusy(what: string): void {
    if (this.host.busy) {
      throw new RpcError(
        RPC.refused,
        `${what}: the agent is working; wait for the turn to end, or interrupt it first`,
      );
    }
  }
}

function childId(p: Params, method: string): string {
  if (typeof p.id !== "string" || !/^[0-9a-z]{1,64}$/.test(p.id)) {
    throw new RpcError(RPC.invalidParams, `${method} needs the id of a sub-agent`);
  }
  return p.id;
}
