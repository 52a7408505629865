import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RELM_PYTHON_DIR, scrubEnvironment } from "../../src/kernel/index.js";
import { testPython } from "../kernel/helpers.js";

// The Python side's own tests (python/tests, stdlib unittest), on the interpreter kernels would use
// (RELM_PYTHON, else the first python3 with IPython); IPython-only cases skip themselves without it.
describe("python/tests (unittest)", () => {
  it("passes", async () => {
    const python = await testPython();
    const args = [
      "-m",
      "unittest",
      "discover",
      "-s",
      path.join(RELM_PYTHON_DIR, "tests"),
      "-t",
      RELM_PYTHON_DIR,
      "-v",
    ];
    // Scrubbed like a kernel's: the tests start runners that inherit it.
    const { code, output } = await run(python.path, args, scrubEnvironment(process.env));
    if (code !== 0)
      throw new Error(`python -m unittest failed (exit ${code}) with ${python.path}:\n${output}`);
    const ran = /^Ran (\d+) tests? in /m.exec(output);
    expect(Number(ran?.[1] ?? 0), output).toBeGreaterThan(0);
    expect(output).toMatch(/^OK\b/m);
  }, 240_000); // generous: ~210 tests, some starting kernels and test runners, on a loaded machine
});

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
