// setTimeout takes at most 2^31 - 1 ms (24.8 days): a longer delay is set to 1 ms, with only a warning
// on stderr. Durations a person gives (--idle-timeout, --cell-timeout, --gate-timeout, config.json's
// timeouts) can be longer, and "wait 30 days" must not become "now". Imports nothing: the host's stub
// (bare Node) uses it too.

/** The longest delay setTimeout honours. */
export const MAX_TIMER_MS = 2_147_483_647;

export interface LongTimeout {
  /** Cancels it; calling it again, or after it fired, does nothing. */
  clear(): void;
}

/**
 * Calls `fn` once after `ms` milliseconds, however long that is: a delay setTimeout cannot take is
 * waited in pieces it can. What is left is counted down by the pieces, not by the clock, as a single
 * setTimeout would (a clock set back or forward does not move it).
 */
export function longTimeout(fn: () => void, ms: number): LongTimeout {
  let timer: NodeJS.Timeout | undefined;
  let cleared = false;
  const arm = (left: number) => {
    const piece = Math.min(Math.max(0, left), MAX_TIMER_MS);
    timer = setTimeout(() => {
      if (left - piece > 0) arm(left - piece);
      else fn();
    }, piece);
  };
  // Infinity or NaN would be waited in pieces for ever: they mean "never".
  if (Number.isFinite(ms)) arm(ms);
  return {
    clear() {
      if (cleared) return;
      cleared = true;
      clearTimeout(timer);
    },
  };
}
