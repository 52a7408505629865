// The one list of refinements waiting to be applied (src/learning/attach/pending-refinements.ts): the
// kernel's (the newest KERNEL_KEEP.count, no time limit) and a front end's (an hour, eight) are both this class.
import { afterEach, describe, expect, it, vi } from "vitest";
import { KERNEL_KEEP, PendingRefinements } from "../../../src/learning/attach/pending-refinements.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("PendingRefinements", () => {
  it("hands a kept refinement out once", () => {
    const pending = new PendingRefinements<string>();
    pending.keep("a", "first");
    expect(pending.take("b")).toBeUndefined();
    expect(pending.take("a")).toBe("first");
    expect(pending.take("a")).toBeUndefined();
  });

  it("without limits keeps every one; with a count, the oldest go first", () => {
    const unlimited = new PendingRefinements<number>();
    const limited = new PendingRefinements<number>({ ms: 60_000, count: 3 });
    for (let i = 0; i < 20; i++) {
      unlimited.keep(`k${i}`, i);
      limited.keep(`k${i}`, i);
    }
    expect(unlimited.take("k0")).toBe(0);
    expect(limited.take("k16")).toBeUndefined();
    expect([17, 18, 19].map((i) => limited.take(`k${i}`))).toEqual([17, 18, 19]);
  });

  it("with a time limit, forgets what waited longer (on the clock, not in real time)", () => {
    vi.useFakeTimers({ now: new Date("2026-01-01T00:00:00Z") });
    const limited = new PendingRefinements<string>({ ms: 60_000, count: 8 });
    const unlimited = new PendingRefinements<string>();
    limited.keep("old", "old");
    unlimited.keep("old", "old");
    vi.setSystemTime(new Date("2026-01-01T00:00:50Z"));
    limited.keep("new", "new");
    vi.setSystemTime(new Date("2026-01-01T00:01:30Z"));
    expect(limited.take("old")).toBeUndefined();
    expect(limited.take("new")).toBe("new");
    expect(unlimited.take("old")).toBe("old");
  });

  it("the kernel's list keeps the newest without a time limit, and knows a key it forgot from one it never had", () => {
    vi.useFakeTimers({ now: new Date("2026-01-01T00:00:00Z") });
    const kernel = new PendingRefinements<number>(KERNEL_KEEP);
    const n = KERNEL_KEEP.count;
    for (let i = 0; i <= n; i++) kernel.keep(`k${i}`, i);
    vi.setSystemTime(new Date("2026-01-08T00:00:00Z")); // a week on: waiting long is no reason to forget
    expect(kernel.take("k0")).toBeUndefined();
    expect(kernel.wasForgotten("k0")).toBe(true);
    expect(kernel.take("k1")).toBe(1);
    expect(kernel.wasForgotten("k1")).toBe(false); // applied, not forgotten
    expect(kernel.wasForgotten("never")).toBe(false);
    expect(kernel.take(`k${n}`)).toBe(n);
  });
});
