// What a session's state.json holds (and the summary of a session no host holds): apart from state.ts,
// which writes it and logs it to the states log (log.ts), so that the log can name the type without
// importing its writer.

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
  /** The root agent's plan() as steps done of all ("2/5"), once it set one (python/relm/plan.py). */
  plan?: string;
  pid: number;
  /**
   * When `pid` started (processStartTime, clock ticks since boot) where /proc tells it: a listing takes a
   * process with that pid but another start time for an unrelated one that was given the pid later.
   * Absent in older state files and where there is no /proc.
   */
  pidStarted?: number;
  detached: boolean;
  /**
   * Variables of the root kernel its last snapshot could not save (too large for the caps, a secret,
   * defined by code): lost when the idle kernel is released or the session ends. Absent: none.
   */
  unsaved?: string[];
  /** Background children at work while the root's own loop is idle (then status says running); absent: none. */
  childrenAtWork?: number;
  /** Requests of its kernels waiting for a person's answer (docs/sandbox.md, "Approvals"); absent: none. */
  approvals?: number;
}

/** A session as listings give it (discovery.ts): its summary, whether a host is live, and damage. */
export interface SessionListing extends SessionState {
  live: boolean;
  /** The journal is damaged in the middle (as a reader or `relm doctor` found it): where, and how. */
  damaged?: { line?: number; reason: string };
}

/**
 * The summary of a session no host holds, as far as `header` (its journal's first line) says: nothing
 * spent, no process. Listings describe a session from its files this way, then add what they read.
 */
export function unhostedState(
  id: string,
  header: { title: string; cwd: string; created: string },
  status: SessionStatus,
): SessionState {
  const { title, cwd, created } = header;
  return {
    id,
    title,
    cwd,
    created,
    status,
    lastActivity: created,
    tokens: 0,
    cost: null,
    pid: 0,
    detached: false,
  };
}
