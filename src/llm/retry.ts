// Backoff between tries. Full jitter spreads clients that failed together; a server's Retry-After wins
// because it knows when capacity returns, but is capped so one bad header cannot stall a run.

import { setTimeout as delay } from "node:timers/promises";

export interface RetryPolicy {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  idleTimeoutMs: number;
}

const RETRY_AFTER_CAP_MS = 60_000;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  retryBaseMs: 1000,
  retryMaxMs: 30_000,
  idleTimeoutMs: 300_000,
};

/** Delay before try number `failedAttempt + 1`. */
export function backoffMs(
  failedAttempt: number,
  policy: RetryPolicy,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), RETRY_AFTER_CAP_MS);
  const ceiling = Math.min(policy.retryMaxMs, policy.retryBaseMs * 2 ** (failedAttempt - 1));
  return Math.round(random() * ceiling);
}

/** The shortest a try is assumed to take when deciding whether a retry still fits before a deadline. */
export const MIN_TRY_MS = 1000;

/**
 * Whether a retry after `delayMs` can still be of use before `deadline`: the time left must cover the
 * delay and one more try, assumed to take as long as the failed one did (at least MIN_TRY_MS, at most
 * the idle timeout — a try that hung ran into it).
 */
export function retryFits(
  deadline: number,
  now: number,
  delayMs: number,
  lastTryMs: number,
  policy: Pick<RetryPolicy, "idleTimeoutMs">,
): boolean {
  const tryMs = Math.min(policy.idleTimeoutMs, Math.max(MIN_TRY_MS, lastTryMs));
  return now + delayMs + tryMs <= deadline;
}

/** `retry-after-ms` (OpenAI), then `retry-after` as seconds or an HTTP date. */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const raw = headers.get("retry-after");
  if (raw === null || raw.trim() === "") return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Resolves true after `ms`, or false as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return delay(ms, true, { signal }).catch(() => false);
}
