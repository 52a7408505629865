// A detached host's idle clocks (src/host/idle-timers.ts) with delays longer than setTimeout can take:
// `--idle-timeout 3000000` (34.7 days) made the host exit 1 ms after its first turn. Fake timers stand
// for the month; what is checked is which callbacks ran, not how long anything took.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { longTimeout, MAX_TIMER_MS } from "../../src/config/long-timeout.js";
import { IdleTimers } from "../../src/host/idle-timers.js";

const DAY_MS = 24 * 3600 * 1000;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("IdleTimers", () => {
  it("waits a 34-day idle timeout out instead of firing at once", () => {
    const fired: string[] = [];
    const timers = new IdleTimers(40 * DAY_MS, 3_000_000_000);
    timers.arm(
      () => fired.push("kernel"),
      () => fired.push("exit"),
    );
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(3_000_000_000 - 1000 - 1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["exit"]);
    vi.advanceTimersByTime(40 * DAY_MS);
    expect(fired).toEqual(["exit", "kernel"]);
  });

  it("cleared, fires nothing, even after the first piece of a long wait", () => {
    const fired: string[] = [];
    const timers = new IdleTimers(3_000_000_000, 3_000_000_000);
    timers.arm(
      () => fired.push("kernel"),
      () => fired.push("exit"),
    );
    vi.advanceTimersByTime(MAX_TIMER_MS + 10);
    timers.clear();
    vi.advanceTimersByTime(10 * MAX_TIMER_MS);
    expect(fired).toEqual([]);
  });
});

describe("longTimeout", () => {
  it("fires once, at the delay, for short and long delays alike", () => {
    for (const ms of [0, 5, MAX_TIMER_MS, MAX_TIMER_MS + 1, 3 * MAX_TIMER_MS + 7]) {
      let calls = 0;
      longTimeout(() => calls++, ms);
      if (ms > 0) {
        vi.advanceTimersByTime(ms - 1);
        expect(calls, `${ms}`).toBe(0);
      }
      vi.advanceTimersByTime(1);
      expect(calls, `${ms}`).toBe(1);
      vi.advanceTimersByTime(10 * MAX_TIMER_MS);
      expect(calls, `${ms}`).toBe(1);
    }
  });

  it("never fires for an infinite delay", () => {
    let calls = 0;
    longTimeout(() => calls++, Number.POSITIVE_INFINITY);
    vi.advanceTimersByTime(10 * MAX_TIMER_MS);
    expect(calls).toBe(0);
  });
});
