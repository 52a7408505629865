// The session host's commands for front ends (the terminal UI above all): everything a person can do to
// a running session besides attach/stop, as JSON-RPC methods. The line-mode slash commands do the same.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { outOfBudgetRefusal } from "../agent/budget/budget.js";
import { compactAgent } from "../agent/compaction/compact-agent.js";
import type { Agent } from "../agent/core/agent.js";
import type { AgentEvent } from "../agent/core/events.js";
import { rewind, rewindPointsOf } from "../agent/core/rewind.js";
import type { UserVariable } from "../agent/core/user-variables.js";
import { makeDirs } from "../config/dirs.js";
import { sandboxed } from "../config/permission-mode.js";
import { sandboxRefusal } from "../kernel/sandbox/index.js";
import { JOURNAL_FILE, readJournal } from "../session/index.js";
import type { CheckedParamsOf, HeartbeatJob, HostHandlers, ResultOf } from "./protocol.js";
import { RPC, RpcError, refused } from "./rpc.js";
import { rememberMode } from "./session-flags.js";
import { descendantDir } from "./states/tree-usage.js";

/** What checkpoint commands answer where there are none (only a root agent has them; a host runs a root). */
const NO_CHECKPOINTS = { error: "file checkpoints belong to the root agent" } as const;

/** What the commands need of the host that runs the session. */
interface CommandHost {
  readonly id: string;
  readonly home: string;
  readonly session: Agent;
  /** A turn (or an autonomous run of turns) is in progress. */
  readonly busy: boolean;
  /** The clients following the session now (the terminal UI that sends a message among them). */
  readonly clients: { readonly attached: number };
  deliver(message: { from: string; text: string; variables?: UserVariable[] }): void;
  /** Stops the running turn and every running sub-agent; true when something was running. */
  interrupt(): boolean;
}

/** The methods answered here: everything but what the host itself and its socket answer. */
type CommandHandlers = Omit<
  HostHandlers,
  "status" | "info" | "autonomy" | "schedule.reload" | "stop" | "shell"
>;

/** One handler per method answered here; params arrive checked against src/host/protocol.ts. */
export function hostCommands(host: CommandHost): CommandHandlers {
  const { session } = host;
  const refuseWhileBusy = (what: string) => {
    if (host.busy)
      throw refused(`${what}: the agent is working; wait for the turn to end, or interrupt it first`);
  };
  return {
    send: (p) => {
      // /quit only detaches while another client follows the session: then only the shell's step works.
      const alone = p.attached === true && host.clients.attached <= 1;
      refuseOverBudget(host, alone ? "attached" : "live");
      const busy = host.busy;
      const images = p.images ?? [];
      const client = session.model.current;
      let imagesNotSent: string | undefined;
      if (images.length > 0 && busy)
        throw refused("the agent is working: send the image when the turn has ended (or Esc)");
      if (images.length > 0 && !client.acceptsImages)
        imagesNotSent = `${client.model} does not take images (acceptsImages in config.json says otherwise)`;
      else if (images.length > 0) session.turns.pendingImages.queue(images);
      host.deliver({ from: "user", text: p.text, variables: p.variables ?? [] });
      return {
        delivered: busy ? "at the next turn boundary" : "now",
        ...(imagesNotSent ? { imagesNotSent } : {}),
      };
    },
    // A message from another session (send() in its kernel): journaled as it arrives, then delivered.
    message: (p) => {
      refuseOverBudget(host, "live"); // as for a person's message: a turn would only stop
      session.record({ type: "message", from: p.from, to: host.id, text: p.text });
      host.deliver({ from: p.from, text: p.text });
      return { delivered: true };
    },
    interrupt: () => ({ interrupted: host.interrupt() }),
    model: (p) => {
      if (p.name !== undefined) {
        try {
          session.model.switchTo(p.name);
        } catch (error) {
          throw refused(`model: ${(error as Error).message}`);
        }
      }
      const { model, via } = session.model.current;
      return { model, provider: via };
    },
    goal: (p) => {
      if (p.text !== undefined) session.goal.set(p.text);
      return { goal: session.goal.text ?? null, done: session.goal.done };
    },
    compact: () => {
      refuseWhileBusy("compact");
      // `compacted` false: nothing was replaced (the message says why); true: the journal's
      // compaction event, which front ends show, says what.
      return compactAgent(session, "manual");
    },
    // The permission mode, and a person's switch of it (/mode, shift+tab): the kernel restarts under the
    // new mode with its variables restored (agent/core/agent.ts switchMode), and the switch is remembered
    // (flags.json), so every later host of the session runs in it too.
    mode: async (p) => {
      const permissions = session.tree.permissions;
      const mode = p.mode;
      if (mode === undefined || mode === permissions.mode) {
        const warning = permissions.warning ? { warning: permissions.warning } : {};
        return { mode: permissions.mode, changed: false, restored: [], notRestored: [], ...warning };
      }
      if (host.busy || session.children.running > 0)
        throw refused(
          "mode: the agent is working; switch when the turn has ended (its kernel restarts under the new mode), or interrupt it first",
        );
      if (sandboxed(mode)) {
        const { env, cacheDir } = session.tree.options.kernel;
        const refusal = sandboxRefusal(env, cacheDir, `/mode ${mode}`);
        if (refusal) throw refused(refusal);
      }
      const switched = await session.switchMode(mode);
      rememberMode(host.home, host.id, mode);
      return switched;
    },
    approvals: () => ({ pending: session.tree.approvals.pending() }),
    approve: (p) => ({
      answered: session.tree.approvals.answer(p.id, {
        allow: p.answer !== "deny",
        scope: p.answer === "deny" ? "once" : p.answer,
        by: p.from,
        ...(p.note ? { note: p.note } : {}),
      }),
    }),
    checkpoints: async () => {
      const list = await (session.checkpoints?.list() ?? NO_CHECKPOINTS);
      return "error" in list ? { checkpoints: [], unavailable: list.error } : { checkpoints: list };
    },
    undo: async (p) => {
      refuseWhileBusy("undo");
      return session.checkpoints?.undo(p.turn) ?? NO_CHECKPOINTS;
    },
    // `/diff`: the patch goes to a file of the session's (a pager opens it), the answer says which files.
    diff: async () => {
      const result = await (session.checkpoints?.sinceStart() ?? NO_CHECKPOINTS);
      if ("error" in result || "none" in result) return result;
      const { patch, ...rest } = result;
      if (patch === "") return { ...rest, file: null };
      const dir = join(session.dir, "diffs");
      makeDirs(dir, 0o700);
      const file = join(dir, `since-turn-${result.fromTurn}-${Date.now()}.diff`);
      writeFileSync(file, patch, { mode: 0o600 });
      return { ...rest, file };
    },
    "rewind.points": () => ({ points: rewindPointsOf(session) }),
    rewind: (p) => {
      refuseWhileBusy("rewind");
      return rewind(session, p.to, p.files ?? false);
    },
    heartbeat: (p) => heartbeat(session, p),
    // Answered by the tree's plugin (src/agent/hooks.ts): learning's refine, refine.apply and learn.
    refine: (p) => plugin(session, "refine", p) as Promise<ResultOf<"refine">>,
    "refine.apply": (p) => plugin(session, "refine.apply", p) as Promise<ResultOf<"refine.apply">>,
    learn: (p) => plugin(session, "learn", p) as Promise<ResultOf<"learn">>,
    "child.cancel": (p) => {
      const child = descendant(host, p.id, "child.cancel");
      const running = child.status === "running";
      child.cancel("cancelled by the user");
      return { cancelled: running, status: running ? "cancelled" : child.status };
    },
    "child.send": (p) => {
      const child = descendant(host, p.id, "child.send");
      try {
        child.deliver(p.text);
      } catch (error) {
        throw refused((error as Error).message);
      }
      return { delivered: true };
    },
    // A descendant's journal, read from its folder: finished children and those of earlier hosts too.
    "child.events": (p) => {
      const { id } = p;
      const dir = descendantDir(session.dir, id);
      if (!dir) throw unknownChild(host, id);
      let journal: ReturnType<typeof readJournal>;
      try {
        journal = readJournal(join(dir, JOURNAL_FILE));
      } catch (error) {
        throw refused(`child.events: the journal of ${id} cannot be read: ${(error as Error).message}`);
      }
      const after = p.after ?? 0;
      return {
        header: journal.header,
        events: journal.events.filter((e) => e.n > after).map((e) => ({ ...e, agent: id }) as AgentEvent),
      };
    },
  };
}

/** A method the plugin attached to the tree answers; without one attached, it is not known here. */
async function plugin(session: Agent, method: string, p: Record<string, unknown>): Promise<unknown> {
  const methods = session.hooks?.hostMethods;
  const handler = methods && Object.hasOwn(methods, method) ? methods[method] : undefined;
  if (!handler) throw new RpcError(RPC.methodNotFound, `unknown method ${method}`);
  return handler(p);
}

/**
 * A message to a session whose budget is spent is refused, not started as a turn that stops at once:
 * budgets are hard (a revived host carries the spend), so only a resume with a higher limit goes on.
 */
function refuseOverBudget(host: CommandHost, from: "live" | "attached"): void {
  const stop = host.session.budget.check();
  if (stop) throw refused(outOfBudgetRefusal(host.id, stop, from));
}

/** `/heartbeat`: every + prompt adds one, off cancels them all, nothing lists them. */
function heartbeat(session: Agent, p: CheckedParamsOf<"heartbeat">): ResultOf<"heartbeat"> {
  const scheduler = session.tree.options.scheduler;
  if (!scheduler) throw refused("this session has no scheduler");
  const list = () => scheduler.list() as HeartbeatJob[];
  if (p.off === true) {
    const ids = list().map((j) => j.id);
    for (const id of ids) scheduler.cancel(id);
    return { cancelled: ids.length, jobs: list() };
  }
  if (p.every === undefined && p.prompt === undefined) return { jobs: list() };
  if (p.every === undefined || p.prompt === undefined || p.prompt.trim() === "") {
    throw new RpcError(
      RPC.invalidParams,
      'heartbeat needs every (like "10m") and a prompt, or off: true to cancel them all',
    );
  }
  try {
    // Quoted as the command was typed (the method is /heartbeat's): "/heartbeat 0s", not relm schedule's --every.
    const job = scheduler.add(
      { every: p.every },
      p.prompt,
      (_key, value) => `/heartbeat ${value}`,
    ) as HeartbeatJob;
    return { job, jobs: list() };
  } catch (error) {
    throw new RpcError(RPC.invalidParams, (error as Error).message);
  }
}

function descendant(host: CommandHost, id: string, method: string) {
  const found = host.session.children.descendant(id);
  if (found) return found;
  if (descendantDir(host.session.dir, id)) {
    throw refused(`${method}: sub-agent ${id} has ended (it ran under an earlier host)`);
  }
  throw unknownChild(host, id);
}

function unknownChild(host: CommandHost, id: string): RpcError {
  return new RpcError(RPC.invalidParams, `no sub-agent ${id} in session ${host.id}`);
}
