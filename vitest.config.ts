import { defineConfig } from "vitest/config";

/**
 * Files that run relm's processes (the built binary, hosts, ptys, browsers) or change the worker's own
 * process.env: each gets a fresh worker, so nothing one leaves behind reaches the next.
 */
const PROCESSES = ["test/e2e/**/*.test.ts", "test/tui/**/*.test.ts", "test/mcp/kernel-api.test.ts"];

export default defineConfig({
  // End-to-end tests run the built binary from dist/: `npm test` builds first.
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Test files start real Python kernels and relm processes; two cores are shared between workers.
    maxWorkers: 2,
    pool: "forks",
    // Both projects share the two workers. Files run longest first by the last run's durations (vitest's
    // cache), and a project's files after those of a project whose name sorts before it: "e2e" (long
    // files) before "units", so the run ends on short files rather than on a long one started late.
    projects: [
      { extends: true, test: { name: "e2e", include: PROCESSES } },
      {
        extends: true,
        test: {
          name: "units",
          include: ["test/**/*.test.ts"],
          exclude: PROCESSES,
          // A fresh worker per file costs ~0.3 s of CPU (a Node start and the imports again), more than
          // most of these files take: they run one after another in a worker that keeps its modules.
          isolate: false,
        },
      },
    ],
  },
});
