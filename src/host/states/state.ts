import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { statePath } from "../paths.js";
import { logState } from "./log.js";
import type { SessionState, SessionStatus } from "./types.js";

export type { SessionState, SessionStatus } from "./types.js";

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
