import { defineConfig } from "vitest/config";

/**
 * Files that get a fresh worker each: the end-to-end files start hosts, browsers and servers in the
 * worker itself and some change its process.env (kernel-api does), so nothing one leaves behind may
 * reach the next.
 */
const ISOLATED = ["test/e2e/**/*.test.ts", "test/mcp/kernel-api.test.ts"];

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
    // cache), and a project's files after those of a project whose name sorts before it: "isolated" (the
    // long files) before "shared", so the run ends on short files rather than on a long one started late.
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
