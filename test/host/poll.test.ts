import { describe, expect, it } from "vitest";
import { poll, waitFor } from "../../src/host/poll.js";

describe("poll", () => {
  it("returns the probe's first value, looking again until it gives one", async () => {
    let calls = 0;
    const value = await poll(async () => (++calls >= 3 ? `after ${calls}` : undefined), 20_000, 1);
    expect(value).toBe("after 3");
    expect(calls).toBe(3);
  });

  it("returns a falsy value as a value (only undefined means not yet)", async () => {
    expect(await poll(() => false, 20_000, 1)).toBe(false);
    expect(await poll(() => 0, 20_000, 1)).toBe(0);
  });

  it("gives undefined once the time is up, having looked at least once", async () => {
    let calls = 0;
    const value = await poll(
      () => {
        calls++;
        return undefined;
      },
      0,
      1,
    );
    expect(value).toBeUndefined();
    expect(calls).toBeGreaterThanOrEqual(1);
  });
});

describe("waitFor", () => {
  it("says whether the check held before the time was up", async () => {
    let n = 0;
    expect(await waitFor(() => ++n > 2, 20_000, 1)).toBe(true);
    expect(await waitFor(async () => false, 0, 1)).toBe(false);
  });
});
