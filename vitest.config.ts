import { defineConfig } from "vitest/config";

/**
 * Files that get a fresh worker each: kernel-api changes its worker's process.env, which must not reach
 * the next file. The end-to-end files share their workers like the rest: they run relm, kernels and
 * browsers as processes of their own and close them after each test (useRigs, usePtys), and none
 * changes the worker's environment, so a fresh worker each (a Node start and the imports again, ~0.2-0.4
 * CPU-s and ~0.4 s with a worker idle between two files) bought nothing (docs/benchmarks.md).
 */
const ISOLATED = ["test/mcp/kernel-api.test.ts"];

export default defineConfig({
  // End-to-end tests run the built binary from dist/: `npm test` builds first.
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Test files start real Python kernels and relm processes; two cores are shared between workers.
    // Three workers passed three full runs in three once the failures seen with them were fixed, but
    // gained 15 s of ~8 min on a quiet machine (docs/benchmarks.md): two, the setting CI has passed with.
    maxWorkers: 2,
    pool: "forks",
    // Both projects share the two workers. Files run longest first by the last run's durations (vitest's
    // cache; without one, largest first), and a project's files after those of a project whose name sorts
    // before it: "isolated" before "shared".
    projects: [
      { extends: true, test: { name: "isolated", include: ISOLATED } },
      {
        extends: true,
        test: {
          name: "shared",
          include: ["test/**/*.test.ts"],
          exclude: ISOLATED,
          // A fresh worker per file costs ~0.3 s of CPU (a Node start and the imports again), more than
          // most of these files take: they run one after another in a worker that keeps its modules.
          // They all pass so (the terminal UI's too: its programs run in ptys, not in the worker).
          isolate: false,
        },
      },
    ],
  },
});
