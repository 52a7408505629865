import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { RELM_PYTHON_DIR, scrubEnvironment } from "../../src/kernel/index.js";
import { testPython } from "../kernel/helpers.js";

// The Python side's own tests (python/tests, stdlib unittest), on the interpreter kernels would use
// (RELM_PYTHON, else the first python3 with IPython); IPython-only cases skip themselves without it.
// Run in two halves, one test file each, so that vitest's two workers share their ~20 s.

const TESTS = path.join(RELM_PYTHON_DIR, "tests");
/** The first half is every module named before this; ~55% of the time (test_runner* are the slowest). */
const SPLIT = "tests.test_s";

/**
 * What `unittest discover -s python/tests -t python` finds (files named test*.py, in packages under
 * python/tests), as module names: every one lands in exactly one half, whatever its name.
 */
function modules(dir = TESTS, prefix = "tests"): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && readdirSync(full).includes("__init__.py"))
      found.push(...modules(full, `${prefix}.${entry.name}`));
    else if (entry.isFile() && /^test.*\.py$/.test(entry.name))
      found.push(`${prefix}.${entry.name.slice(0, -3)}`);
  }
  return found;
}

export function pythonTestHalf(half: 1 | 2): string[] {
  const first = (m: string) => m < SPLIT;
  return modules()
    .filter((m) => (half === 1 ? first(m) : !first(m)))
    .sort();
}

/** Runs `python -m unittest -v` on `names` (modules of python/tests) and expects them all to pass. */
export async function runPythonTests(names: string[]): Promise<void> {
  expect(names.length).toBeGreaterThan(0);
  const python = await testPython();
  // Scrubbed like a kernel's: the tests start runners that inherit it.
  const { code, output } = await run(
    python.path,
    ["-m", "unittest", "-v", ...names],
    scrubEnvironment(process.env),
  );
  if (code !== 0) throw new Error(`python -m unittest failed (exit ${code}) with ${python.path}:\n${output}`);
  const ran = /^Ran (\d+) tests? in /m.exec(output);
  expect(Number(ran?.[1] ?? 0), output).toBeGreaterThan(0);
  expect(output).toMatch(/^OK\b/m);
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: RELM_PYTHON_DIR, env, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => chunks.push(d));
    child.stderr.on("data", (d: Buffer) => chunks.push(d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output: Buffer.concat(chunks).toString("utf8") }));
  });
}
