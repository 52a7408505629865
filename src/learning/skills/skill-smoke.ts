// A mined skill's smoke test: its package imported and its function called with a recorded input in
// a fresh kernel forked from a new warm template, in the recorded run's working directory; what the
// cell prints must match what the recorded cells printed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { startKernel, startKernelTemplate } from "../../kernel/index.js";
import type { CellResult, KernelLifecycleEvent, PythonInfo } from "../../kernel/types.js";
import { diffLines } from "../store/diff.js";
import { normaliseOutput, type SmokeTest } from "./mine-package.js";

interface SmokeOptions {
  python: PythonInfo;
  /** The environment kernels start from (scrubbed of secrets by the kernel layer). */
  env: NodeJS.ProcessEnv;
  name: string;
  code: string;
  test: SmokeTest;
  /** The skill folders a new session would have on PYTHONPATH, after the candidate's own. */
  skillPaths?: string[];
  timeoutMs?: number;
}

export interface SmokeRun {
  passed: boolean;
  /** The template the kernel was forked from; absent when it was spawned (see `fallback`). */
  forkedFrom?: number;
  fallback?: string;
  cwd: string;
  status: CellResult["status"];
  error?: { name: string; value: string };
  /** Both sides as compared (normalised). */
  expected: string;
  actual: string;
  durationMs: number;
}

// Outputs are compared whole: the kernel's cap must not cut the test's side short.
const SMOKE_OUTPUT_CAP = 5_000_000;

export async function runSmokeTest(options: SmokeOptions): Promise<SmokeRun> {
  const dir = mkdtempSync(join(tmpdir(), "relm-skill-"));
  const cwd = options.test.occurrence.cwd;
  let started: Extract<KernelLifecycleEvent, { type: "started" }> | undefined;
  try {
    mkdirSync(join(dir, options.name), { mode: 0o700 });
    writeFileSync(join(dir, options.name, "__init__.py"), options.code, { mode: 0o600 });
    const base = options.env.PYTHONPATH ? [options.env.PYTHONPATH] : [];
    const env = { ...options.env, PYTHONPATH: [dir, ...(options.skillPaths ?? []), ...base].join(delimiter) };
    const template = await startKernelTemplate({ python: options.python, env });
    try {
      const kernel = await startKernel({
        template,
        cwd,
        env,
        python: options.python,
        outputCap: SMOKE_OUTPUT_CAP,
        cellTimeoutMs: options.timeoutMs ?? 120_000,
        // Importing other skills counts a use through the host; a test run is no use.
        onHostRequest: async (method) => {
          if (method === "harness.used") return { counted: false };
          throw new Error(`a smoke test has no host for ${method}`);
        },
        onLifecycle: (event) => {
          if (event.type === "started") started ??= event;
        },
      });
      try {
        const result = await kernel.execute(options.test.cell);
        const expected = normaliseOutput(options.test.expected);
        const actual = normaliseOutput(result.output);
        return {
          passed: result.status === "ok" && result.shellExitCode === undefined && actual === expected,
          forkedFrom: started?.forkedFrom,
          fallback: started?.fallback,
          cwd,
          status: result.status,
          error: result.error,
          expected,
          actual,
          durationMs: result.durationMs,
        };
      } finally {
        await kernel.shutdown();
      }
    } finally {
      await template.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The test's output as a person reads it: what ran, where, and expected against actual. */
export function describeSmokeRun(run: SmokeRun, test: SmokeTest): string[] {
  const kernel = run.forkedFrom
    ? `a fresh kernel forked from template ${run.forkedFrom}`
    : `a fresh spawned kernel (${run.fallback ?? "forking unavailable"})`;
  const lines = [
    `smoke test: ${test.call}`,
    `  in ${kernel}, working directory ${run.cwd}`,
    `  recorded in ${test.occurrence.session}, journal events ${test.occurrence.events.join(", ")}`,
  ];
  if (run.passed) {
    lines.push(
      `  passed: the output matches the recorded output (${run.expected.split("\n").length} line(s))`,
    );
    return lines;
  }
  const why =
    run.status !== "ok"
      ? `the cell ended with ${run.status}${run.error ? ` (${run.error.name}: ${run.error.value})` : ""}`
      : "the output differs from the recorded output";
  lines.push(`  failed: ${why}`, "  recorded (-) against now (+):");
  lines.push(...diffLines(run.expected, run.actual).map((l) => `    ${l}`));
  return lines;
}
