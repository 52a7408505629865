import { UsageError } from "./errors.js";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "90", "90s", "30m", "1h30m", "250ms" into milliseconds; a bare number means seconds. */
export function parseDuration(text: string, what = "duration"): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  const consumed = parts.map((p) => p[0]).join("");
  if (parts.length === 0 || consumed !== trimmed) {
    throw new UsageError(`invalid ${what} "${text}": use e.g. 90s, 30m, 1h30m or a number of seconds`);
  }
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * (UNIT_MS[p[2] as string] ?? 0), 0));
}

/**
 * A time budget (`--max-time`, a spec's `max_time`): a duration, where 0 ("0", "0s", "0m") means no limit,
 * as it does for `timeout 0` and curl's `--max-time 0` — a run that is over before it starts is never
 * what was meant. undefined: no limit.
 */
export function parseTimeLimit(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text, what);
  if (ms > 0) return ms;
  // "0.1ms" is a (tiny) limit, not none.
  return /[1-9]/.test(text) ? 1 : undefined;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${Math.round(s % 60)}s`;
  return `${Math.floor(m / 60)}h${m % 60}m`;
}
