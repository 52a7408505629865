// What a session's state.json holds: apart from state.ts, which writes it and logs it to the states log
// (log.ts), so that the log can name the type without importing its writer.

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
  /** Requests of its kernels waiting for a person's answer (docs/sandbox.md, "Approvals"); absent: none. */
  approvals?: number;
}
