import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each test file starts real Python kernels; two cores are shared between workers.
    maxWorkers: 2,
    pool: "forks",
  },
});
