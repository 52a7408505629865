import { describe, it } from "vitest";
import { pythonTestHalf, runPythonTests } from "./unittest-run.js";

describe("python/tests (unittest), half 2 of 2", () => {
  it("passes", async () => {
    await runPythonTests(pythonTestHalf(2));
  }, 240_000); // generous: ~160 tests, some starting kernels and test runners, on a loaded machine
});
