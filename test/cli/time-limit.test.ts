// --max-time and a spec's max_time: a duration, 0 meaning no limit (docs/budgets.md).
import { describe, expect, it } from "vitest";
import { limitsOf } from "../../src/cli/host-args.js";
import { parseTimeLimit } from "../../src/config/duration.js";
import { UsageError } from "../../src/config/errors.js";

describe("time limits", () => {
  it("reads durations, and 0 in any unit as no limit", () => {
    expect(parseTimeLimit("30m", "--max-time")).toBe(1_800_000);
    expect(parseTimeLimit("90", "--max-time")).toBe(90_000);
    for (const zero of ["0", "0s", "0m", "0ms", "0.0", "0h0m"]) {
      expect(parseTimeLimit(zero, "--max-time"), zero).toBeUndefined();
    }
    expect(parseTimeLimit("0.1ms", "--max-time")).toBe(1);
    expect(parseTimeLimit(undefined, "--max-time")).toBeUndefined();
    for (const bad of ["-1", "5x", "", "soon"]) {
      expect(() => parseTimeLimit(bad, "--max-time"), bad).toThrow(UsageError);
    }
  });

  it("is the same for relm run and for the hosts a front end starts", () => {
    expect(limitsOf({ maxTime: "0" }).maxTimeMs).toBeUndefined();
    expect(limitsOf({ maxTime: "0" }).maxTimeMs).toBeUndefined();
    expect(limitsOf({ maxTime: "2m" }).maxTimeMs).toBe(120_000);
  });
});
