// What the MCP server's tools do to sessions. Each task is an ordinary relm session served by its own
// detached host (as `relm run --detach` starts one), so `relm agents`, `attach`, `logs` and `send` see it
// like any other; this process is only a client of those hosts.
import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { type BudgetLimits, smaller } from "../agent/budget/budget.js";
import type { AgentEvent } from "../agent/core/events.js";
import {
  checkUserVariables,
  stageUserVariables,
  type UserVariable,
  VariableInputError,
} from "../agent/core/user-variables.js";
import type { ApprovalAsker } from "../commands/approval-asker.js";
import type { SessionSpec } from "../config/options.js";
import { HostUnreachableError, SessionHandle } from "../host/session-handle.js";
import { spawnHost } from "../host/spawn.js";
import { describe } from "../host/states/discovery.js";
import type { SessionListing } from "../host/states/types.js";
import { outcomeOf, type WorkOutcome, WorkWatch } from "../host/work-watch.js";
import {
  JOURNAL_FILE,
  newSessionId,
  readHeaderAndTail,
  readJournal,
  resolveSessionId,
  sessionDir,
  sessionsDir,
} from "../session/index.js";
import { type Elicit, mcpApprovals } from "./approvals.js";

/** A mistake in a tool's arguments (or a session that cannot be used): told to the calling model. */
export class TaskInputError extends Error {
  override name = "TaskInputError";
}

/** Budgets in the units the tools take them (snake_case, as MCP clients' models write them). */
interface TaskBudgets {
  max_turns?: number;
  max_tokens?: number;
  /** Seconds. */
  max_time?: number;
  /** US dollars. */
  max_cost?: number;
}

interface TaskRequest {
  task: string;
  cwd?: string;
  variables?: Record<string, string>;
  budgets?: TaskBudgets;
}

export interface TaskEnvironment {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Where a task without `cwd` runs. */
  cwd: string;
  /** Options every host is started with (model, endpoint, cell timeout, depth…). */
  hostSpec: SessionSpec;
  /** The most any task may spend (`relm mcp serve --max-…`); a task's own budgets can only be lower. */
  caps: BudgetLimits;
  /** Throws when no task could start (no model configured): said before any process starts. */
  preflight?: () => void;
}

function effectiveLimits(caps: BudgetLimits, budgets: TaskBudgets = {}): BudgetLimits {
  return {
    maxTurns: smaller(caps.maxTurns, budgets.max_turns),
    maxTokens: smaller(caps.maxTokens, budgets.max_tokens),
    maxTimeMs: smaller(caps.maxTimeMs, budgets.max_time === undefined ? undefined : budgets.max_time * 1000),
    maxCost: smaller(caps.maxCost, budgets.max_cost),
  };
}

/** `limits` as the budget options of a host's spec. */
function limitSpec(limits: BudgetLimits): SessionSpec {
  const spec: SessionSpec = {};
  if (limits.maxTurns !== undefined) spec.maxTurns = String(limits.maxTurns);
  if (limits.maxTokens !== undefined) spec.maxTokens = String(limits.maxTokens);
  if (limits.maxTimeMs !== undefined) spec.maxTime = `${Math.max(1, Math.round(limits.maxTimeMs))}ms`;
  if (limits.maxCost !== undefined) spec.maxCost = String(limits.maxCost);
  return spec;
}

function workingDir(base: string, cwd: string | undefined): string {
  if (cwd === undefined) return base;
  const dir = resolve(base, cwd);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new TaskInputError(`cwd ${dir} does not exist`);
  }
  if (!isDir) throw new TaskInputError(`cwd ${dir} is not a directory`);
  return dir;
}

/**
 * Starts a session's host on the task and returns its id once the host answers. Variables are staged
 * in the session's `inputs/` (0600) and loaded into the kernel as `str` before the first model call.
 */
export async function startTask(environment: TaskEnvironment, request: TaskRequest): Promise<string> {
  const task = request.task.trim();
  if (task.length === 0) throw new TaskInputError("task is empty: say what relm should do");
  const cwd = workingDir(environment.cwd, request.cwd);
  environment.preflight?.();
  const variables = checkedVariables(request.variables);
  const id = newSessionId();
  const staged = stageUserVariables(sessionDir(environment.home, id), variables);
  const spec: SessionSpec = {
    ...environment.hostSpec,
    ...limitSpec(effectiveLimits(environment.caps, request.budgets)),
    var: staged.map(({ spec }) => `${spec.name}=@${(spec.source as { file: string }).file}`),
  };
  await spawnHost(environment.home, id, { spec, task }, environment.env, cwd);
  return id;
}

/** A tool's `variables` (NAME -> text), checked as kernel variables; a bad one is the caller's mistake. */
function checkedVariables(variables: Record<string, string> = {}): UserVariable[] {
  try {
    return checkUserVariables(Object.entries(variables).map(([name, text]) => ({ name, text })));
  } catch (error) {
    if (error instanceof VariableInputError) throw new TaskInputError(error.message);
    throw error;
  }
}

/** A session id or unique prefix, as a full id. */
export function sessionIdOf(home: string, prefix: string): string {
  try {
    return resolveSessionId(sessionsDir(home), prefix);
  } catch (error) {
    throw new TaskInputError((error as Error).message);
  }
}

/** `n` of the session's last journal event (0 when it has none yet). */
export function lastEventN(home: string, id: string): number {
  try {
    return readHeaderAndTail(join(sessionDir(home, id), JOURNAL_FILE), 4096).lastN;
  } catch {
    return 0;
  }
}

export interface Follow {
  /** Every event of the tree, root and sub-agents, as it arrives. */
  onEvent?: (event: AgentEvent) => void;
  signal?: AbortSignal;
  /** Give up waiting (the work goes on) after this long. */
  timeoutMs?: number;
  /** Work that ended before `after` (from the journal): the outcome when nothing is running now. */
  seed?: () => WorkOutcome | undefined;
  /** Asks the client about the session's requests waiting for a person (when it can: approvals.ts). */
  elicit?: Elicit;
}

/** How following a session's work ended: its outcome, or that the caller stopped waiting. */
export type Followed = { outcome: WorkOutcome } | { waiting: "aborted" | "timeout" };

/**
 * Follows the session's live host from event `after` until the work ends. Resolves `undefined` for the
 * outcome when no host is serving it.
 */
export async function follow(
  home: string,
  id: string,
  after: number,
  options: Follow = {},
): Promise<Followed | undefined> {
  let watch: WorkWatch | undefined;
  let approvals: ApprovalAsker | undefined;
  const handle = new SessionHandle({
    home,
    id,
    after,
    onConnect: () => {
      watch = new WorkWatch(handle);
    },
    onEvent: (event) => {
      watch?.feed(event);
      approvals?.onEvent(event);
      options.onEvent?.(event);
    },
    onClosing: (reason) => watch?.hostClosing(reason),
  });
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<Followed>((resolve) => {
    if (options.timeoutMs !== undefined)
      timer = setTimeout(() => resolve({ waiting: "timeout" }), options.timeoutMs);
    onAbort = () => resolve({ waiting: "aborted" });
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    if (!(await handle.connect())) return undefined;
    const watching = watch as WorkWatch;
    if (options.seed) watching.seed(options.seed());
    if (options.elicit) {
      approvals = mcpApprovals(id, handle.call, options.elicit);
      void approvals.refresh(); // one that waited before this call followed the session
    }
    return await Promise.race([watching.settled.then((outcome) => ({ outcome })), stopped]);
  } catch {
    return { outcome: { status: "closed", text: "the session host closed the connection" } };
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener("abort", onAbort);
    approvals?.close();
    handle.close();
  }
}

/** Sends the person's message to a session; one whose host has exited is resumed with it. */
export async function sendMessage(
  environment: TaskEnvironment,
  id: string,
  text: string,
  variables?: Record<string, string>,
): Promise<{ delivered: string; after: number }> {
  if (text.trim().length === 0) throw new TaskInputError("text is empty");
  const checked = checkedVariables(variables);
  const after = lastEventN(environment.home, id);
  const handle = new SessionHandle({ home: environment.home, id, env: environment.env });
  if (!(await handle.connect({ follow: false }))) {
    // Resumed from its journal by a new host; with the message as its first turn when it has no
    // variables (those go through the socket, so the host starts empty-handed and then gets both).
    const spec = { ...environment.hostSpec, ...limitSpec(environment.caps) };
    if (checked.length === 0) {
      await handle.revive({ message: text, spec, connect: false });
      return { delivered: "resumed the session with it", after };
    }
    await handle.revive({ spec, follow: false }).catch((error: unknown) => {
      throw error instanceof HostUnreachableError ? new TaskInputError(error.message) : error;
    });
  }
  try {
    const result = await handle.send(text, checked);
    return { delivered: result.delivered, after };
  } catch (error) {
    throw new TaskInputError(`session ${id}: ${(error as Error).message}`);
  } finally {
    handle.close();
  }
}

/** How long a stop may take before this server stops waiting for it (the host goes on stopping). */
const STOP_WAIT_MS = 30_000;

/** Asks a live host to interrupt its work and stop (a foreground task whose caller went away). */
export async function stopTask(home: string, id: string, interrupt: boolean): Promise<void> {
  const handle = new SessionHandle({ home, id });
  if (!(await handle.connect({ follow: false }))) return;
  let timer: NodeJS.Timeout | undefined;
  try {
    if (interrupt) await handle.call("interrupt").catch(() => undefined);
    const stopped = handle.stop("its MCP client stopped waiting");
    await Promise.race([stopped, new Promise((r) => (timer = setTimeout(r, STOP_WAIT_MS)))]);
  } finally {
    clearTimeout(timer);
    handle.close();
  }
}

/** What task_status and list_sessions say about a session (in the snake_case MCP clients' models write). */
export function summary(listing: SessionListing) {
  return {
    session_id: listing.id,
    // relm's status: running, waiting (on sub-agents), idle, done, failed, interrupted.
    status: listing.status,
    // No work in progress: the last task's outcome is final (until a new message).
    finished: listing.status !== "running" && listing.status !== "waiting",
    live: listing.live,
    title: listing.title,
    cwd: listing.cwd,
    created: listing.created,
    last_activity: listing.lastActivity,
    tokens: listing.tokens,
    cost_usd: listing.cost,
    ...(listing.reason ? { reason: listing.reason } : {}),
  };
}

export async function taskSummary(home: string, id: string) {
  const listing = await describe(home, id);
  if (!listing) throw new TaskInputError(`session ${id} has no journal yet`);
  return summary(listing);
}

/** The outcome of the session's last finished turn, from its journal (undefined before any ended). */
export function lastOutcome(home: string, id: string): WorkOutcome | undefined {
  const path = join(sessionDir(home, id), JOURNAL_FILE);
  const find = (events: AgentEvent[]): WorkOutcome | undefined => {
    let report: string | undefined;
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i] as AgentEvent;
      if (event.agent) continue;
      if (event.type === "autonomy_end" && report === undefined) report = event.report;
      // A later message started new work: what ended before it is not that work's outcome.
      if (event.type === "user") return undefined;
      const outcome = outcomeOf(event);
      if (outcome) return report ? { ...outcome, report } : outcome;
    }
    return undefined;
  };
  try {
    const tail = find(readHeaderAndTail(path, 256 * 1024).events as AgentEvent[]);
    return tail ?? find(readJournal(path).events as AgentEvent[]);
  } catch {
    return undefined;
  }
}
