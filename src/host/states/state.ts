import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { startTimeOf } from "../../config/process.js";
import { statePath } from "../paths.js";
import { logState } from "./log.js";
import type { UsageTally } from "./tree-usage.js";
import type { SessionState, SessionStatus } from "./types.js";

export type { SessionState, SessionStatus } from "./types.js";

/** What a host says of its session: tokens and cost of the whole tree over the session's life. */
export function stateOf(host: {
  id: string;
  title: string;
  cwd: string;
  created: string;
  status: SessionStatus;
  reason: string | undefined;
  lastActivity: string;
  usage: UsageTally;
  pid: number;
  detached: boolean;
  plan?: string;
  approvals?: number;
  unsaved?: string[];
}): SessionState {
  // Work before a resume included (the budget counts only what this process spent); null cost once any
  // call was unpriced.
  const { usage, cost } = host.usage;
  return {
    id: host.id,
    title: host.title,
    cwd: host.cwd,
    created: host.created,
    status: host.status,
    reason: host.reason,
    lastActivity: host.lastActivity,
    tokens: usage.input + usage.output,
    cachedTokens: usage.cached,
    cacheWriteTokens: usage.cacheWrite,
    cost,
    ...(host.plan ? { plan: host.plan } : {}),
    pid: host.pid,
    pidStarted: startTimeOf(host.pid),
    detached: host.detached,
    ...(host.approvals ? { approvals: host.approvals } : {}),
    ...(host.unsaved?.length ? { unsaved: host.unsaved } : {}),
  };
}

/** Writes state.json and appends it to index/states.jsonl, the index listings read (log.ts). */
export function writeState(home: string, state: SessionState): void {
  writeStateFile(home, state);
  logState(home, state);
}

/** state.json only: for a caller that logs many states at once (a listing). */
export function writeStateFile(home: string, state: SessionState): void {
  const path = statePath(home, state.id);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

export function readState(home: string, id: string): SessionState | undefined {
  const path = statePath(home, id);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as SessionState;
  } catch {
    return undefined;
  }
}

/** Statuses that need a live host to be true. */
export function claimsLiveHost(status: SessionStatus): boolean {
  return status === "running" || status === "idle" || status === "waiting";
}
