// A mined skill's smoke test: its package imported and its function called with a recorded run's
// arguments in a fresh kernel forked from a new warm template, in a scratch copy of the project (never the
// project itself), confined by the kernel sandbox where it works. It passes when the call ends ok, prints
// what the recorded cells printed (its returned value shown as the chain showed it), has a docstring, and
// returns a value where the chain's last cell showed one.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirs } from "../../config/dirs.js";
import { startKernel, startKernelTemplate, withSkillPath } from "../../kernel/index.js";
import { sandboxLauncher } from "../../kernel/launchers/sandbox.js";
import { openSandbox, probeSandbox, sandboxUnavailable } from "../../kernel/sandbox/index.js";
import type { KernelSandbox } from "../../kernel/sandbox/types.js";
import type { CellResult, KernelLifecycleEvent, PythonInfo } from "../../kernel/types.js";
import { diffLines } from "../store/diff.js";
import { normaliseOutput, type SmokeTest } from "./mine-package.js";
import { makeScratch } from "./skill-scratch.js";

interface SmokeOptions {
  python: PythonInfo;
  /** The environment kernels start from (scrubbed of secrets by the kernel layer). */
  env: NodeJS.ProcessEnv;
  name: string;
  code: string;
  test: SmokeTest;
  /** The project the recorded run worked in: copied, and the copy is where the test runs. */
  project: string;
  /** RELM_HOME: never copied, and hidden from a confined test. */
  relmHome?: string;
  /** The skill folders a new session would have (RELM_SKILL_PATH), after the candidate's own. */
  skillPaths?: string[];
  timeoutMs?: number;
  /** Confine the test in the kernel sandbox where it works (default true). */
  confine?: boolean;
}

export interface SmokeRun {
  passed: boolean;
  /** Why it failed, in a sentence. */
  failure?: string;
  /** The template the kernel was forked from; absent when it was spawned (see `fallback`). */
  forkedFrom?: number;
  fallback?: string;
  /** The working directory in the scratch copy, and what the copy holds. */
  cwd: string;
  scratch: string;
  /** How the test was confined, or why it was not. */
  confinement: string;
  status: CellResult["status"];
  error?: { name: string; value: string };
  /** Both sides as compared (normalised). */
  expected: string;
  actual: string;
  /** What the test saw of the function: a docstring, and whether it returned None. */
  docstring?: boolean;
  returnedNone?: boolean;
  /** Of the files the call was given to write, those it wrote (as recorded). */
  wrote: string[];
  durationMs: number;
}

// Outputs are compared whole: the kernel's cap must not cut the test's side short.
const SMOKE_OUTPUT_CAP = 5_000_000;

export async function runSmokeTest(options: SmokeOptions): Promise<SmokeRun> {
  const test = options.test;
  const scratch = makeScratch(
    options.project,
    test.occurrence.cwd,
    test.inputs,
    options.relmHome ? [options.relmHome] : [],
  );
  let sandbox: KernelSandbox | undefined;
  let started: Extract<KernelLifecycleEvent, { type: "started" }> | undefined;
  try {
    const packageDir = join(scratch.dir, "package");
    makeDirs(join(packageDir, options.name), 0o700);
    writeFileSync(join(packageDir, options.name, "__init__.py"), options.code, { mode: 0o600 });
    const env = withSkillPath(options.env, [packageDir, ...(options.skillPaths ?? [])]);
    const confined = await confine(options, scratch.root, env);
    sandbox = confined.sandbox;
    const launcher = sandbox ? sandboxLauncher(sandbox) : undefined;
    const template = await startKernelTemplate({
      python: options.python,
      env,
      ...(launcher ? { wrapper: launcher } : {}),
    });
    try {
      const kernel = await startKernel({
        template,
        cwd: scratch.cwd,
        env,
        python: options.python,
        outputCap: SMOKE_OUTPUT_CAP,
        cellTimeoutMs: options.timeoutMs ?? 120_000,
        ...(launcher ? { launcher } : {}),
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
        const args = test.args.map((a) => {
          if (a.role === "write" && a.string !== null)
            return `${a.name}=${JSON.stringify(scratch.writePath(a.string))}`;
          if (a.role === "read" && a.string !== null)
            return `${a.name}=${JSON.stringify(scratch.readPath(a.string))}`;
          return `${a.name}=${a.literal}`;
        });
        const cell = [`import ${options.name} as _skill`, `_r = _skill.${options.name}(${args.join(", ")})`];
        if (test.show) cell.push(test.show);
        const result = await kernel.execute(cell.join("\n"));
        const expected = normaliseOutput(test.expected);
        const actual = normaliseOutput(result.output);
        const seen = result.status === "ok" ? await inspect(kernel, options.name) : undefined;
        const wrote = test.args
          .filter((a) => a.role === "write" && a.string !== null && existsSync(scratch.writePath(a.string)))
          .map((a) => a.string as string);
        // The first of these that holds is why it failed.
        const error = result.error ? ` (${result.error.name}: ${result.error.value})` : "";
        const failure = [
          result.status !== "ok" && `the call ended with ${result.status}${error}`,
          result.shellExitCode !== undefined && `a shell command in it exited with ${result.shellExitCode}`,
          actual !== expected && "the output differs from the recorded output",
          !seen?.docstring && "the function has no docstring",
          test.needsValue &&
            seen?.returnedNone &&
            "the function returned None, but the chain's last cell showed a value",
        ].find((why) => typeof why === "string");
        return {
          passed: failure === undefined,
          ...(failure ? { failure } : {}),
          forkedFrom: started?.forkedFrom,
          fallback: started?.fallback,
          cwd: scratch.cwd,
          scratch: scratch.copied,
          confinement: confined.how,
          status: result.status,
          error: result.error,
          expected,
          actual,
          docstring: seen?.docstring,
          returnedNone: seen?.returnedNone,
          wrote,
          durationMs: result.durationMs,
        };
      } finally {
        await kernel.shutdown();
      }
    } finally {
      await template.close();
    }
  } finally {
    await sandbox?.close();
    scratch.close();
  }
}

/** The function's docstring and whether `_r` is None, asked of the kernel after the call. */
async function inspect(
  kernel: { execute(code: string): Promise<CellResult> },
  name: string,
): Promise<{ docstring: boolean; returnedNone: boolean } | undefined> {
  const probe = await kernel.execute(
    `import json as _json\nprint(_json.dumps({"docstring": bool((getattr(_skill.${name}, "__doc__", None) or "").strip()), "returnedNone": _r is None}))`,
  );
  try {
    return JSON.parse(probe.output.trim().split("\n").at(-1) ?? "");
  } catch {
    return undefined;
  }
}

/** The kernel sandbox around the test where it works: only the scratch copy writable, no network. */
async function confine(
  options: SmokeOptions,
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<{ sandbox?: KernelSandbox; how: string }> {
  if (options.confine === false) return { how: "not confined (asked not to be)" };
  const missing = sandboxUnavailable(env);
  if (missing) return { how: `not confined: ${missing.replace(/^--sandbox needs/, "confinement needs")}` };
  const probe = probeSandbox(env);
  if (!probe.ok) return { how: `not confined: the sandbox does not work here (${probe.detail})` };
  try {
    const sandbox = await openSandbox({
      // As a --sandbox session's kernels: the system and $HOME read-only (an interpreter's packages in
      // ~/.local stay importable), the project (here the copy) writable, RELM_HOME hidden.
      settings: { mode: "workspace", net: { kind: "none" } },
      project: root,
      relmHome: options.relmHome,
      env,
      python: options.python.path,
    });
    return {
      sandbox,
      how: `confined by ${sandbox.engine}: only the scratch copy is writable, no network, RELM_HOME hidden`,
    };
  } catch (error) {
    return { how: `not confined: the sandbox could not be opened (${(error as Error).message})` };
  }
}

/** The test's output as a person reads it: what ran, where, and expected against actual. */
export function describeSmokeRun(run: SmokeRun, test: SmokeTest): string[] {
  const kernel = run.forkedFrom
    ? `a fresh kernel forked from template ${run.forkedFrom}`
    : `a fresh spawned kernel (${run.fallback ?? "forking unavailable"})`;
  const lines = [
    `smoke test: ${test.call}`,
    `  in ${kernel}, in ${run.scratch}, working directory ${run.cwd}`,
    `  ${run.confinement}`,
    `  recorded in ${test.occurrence.session}, journal events ${test.occurrence.events.join(", ")}`,
  ];
  if (run.passed) {
    const also = [
      "it has a docstring",
      ...(test.needsValue ? ["it returned a value"] : []),
      ...(run.wrote.length > 0 ? [`it wrote ${run.wrote.join(", ")} in the copy`] : []),
    ];
    lines.push(
      `  passed: the output matches the recorded output (${run.expected.split("\n").length} line(s)); ${also.join("; ")}`,
    );
    return lines;
  }
  lines.push(`  failed: ${run.failure}`);
  if (run.actual !== run.expected) {
    lines.push("  recorded (-) against now (+):");
    lines.push(...diffLines(run.expected, run.actual).map((l) => `    ${l}`));
  }
  return lines;
}
