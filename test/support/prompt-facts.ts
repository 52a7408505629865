import type { EnvironmentFacts } from "../../src/agent/core/prompt.js";

/** The environment facts of a plain local root agent, for tests of the system prompt. */
export const localFacts: EnvironmentFacts = {
  cwd: "/p",
  depth: 0,
  maxDepth: 2,
  date: "2026-01-01",
  platform: "linux x64",
  python: { version: "3.12.0", ipython: "8.0.0" },
  variables: [],
};
