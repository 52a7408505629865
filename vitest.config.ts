import { defineConfig } from "vitest/config";

export default defineConfig({
  // End-to-end tests run the built binary from dist/: `npm test` builds first.
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Test files start real Python kernels and relm processes; two cores are shared between workers.
    maxWorkers: 2,
    pool: "forks",
  },
});
