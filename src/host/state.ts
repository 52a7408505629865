import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { statePath } from "./paths.js";
import { logState } from "./states-log.js";

export type SessionStatus = "running" | "idle" | "waiting" | "done" | "failed" | "interrupted";

/**
 * A session's summary, rewritten (atomically) by its host whenever it changes, so listing hundreds of
 * sessions reads one small file each. It never decides liveness: a host that claims to be running is
 * checked on its socket.
 */
export interface SessionState {
  id: string;
  title: string;
  cwd: string;
  created: string;
  status: SessionStatus;
  /** Why it ended, for failed / interrupted. */
  reason?: string;
  lastActivity: string;
  tokens: number;
  /** Of the input tokens, those read from the provider's prompt cache (absent in older state files). */
  cachedTokens?: number;
  /** Of the input tokens, those written to the provider's prompt cache (Anthropic). */
  cacheWriteTokens?: number;
  cost: number | null;
  pid: number;
  detached: boolean;
}

/** Writes state.json and appends it to index/states.jsonl, the index listings read (states-log.ts). */
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
