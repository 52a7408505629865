// Gates run through a sandbox's wrapper (a sandboxed session's, issue 19 item 4): real bubblewrap. What
// a gate may touch is the kernels' share, and its results (exit codes, output, timeouts) are as before.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type GateOptions, runGate } from "../../src/agent/gates/gates.js";
import { netPolicyOf, openSandbox } from "../../src/kernel/sandbox/index.js";
import type { KernelSandbox } from "../../src/kernel/sandbox/types.js";
import { tempDir, testPython } from "../kernel/helpers.js";
import { eventually } from "../support/wait.js";

const linux = process.platform === "linux" && existsSync("/usr/bin/bwrap");
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sandboxed(): Promise<{ project: string; options: GateOptions }> {
  const project = await tempDir("relm-gate-project-");
  const home = await tempDir("relm-gate-home-");
  const sandbox: KernelSandbox = await openSandbox({
    settings: { mode: "workspace", net: netPolicyOf([]) },
    project,
    sessionDir: join(home, "sessions", "S1"),
    relmHome: home,
    env: process.env,
    python: (await testPython()).path,
  });
  cleanups.push(() => sandbox.close());
  return { project, options: { cwd: project, wrap: (c) => sandbox.wrap(c) } };
}

/** Host pids of processes whose command line has `word` in it. */
function processesWith(word: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").includes(word)) pids.push(Number(name));
    } catch {
      // gone
    }
  }
  return pids;
}

describe.skipIf(!linux)("gates in a sandbox", () => {
  it("write the project, not elsewhere; exit codes and interleaved output are the command's", async () => {
    const { project, options } = await sandboxed();
    // Outside the project, not under /tmp (the sandbox's own): the host's disk.
    const elsewhere = mkdtempSync(join(homedir(), ".relm-gate-elsewhere-"));
    cleanups.push(() => rmSync(elsewhere, { recursive: true, force: true }));
    writeFileSync(join(project, "check.sh"), "echo out; echo err >&2; exit 5\n");
    const r = await runGate(
      `echo in-project > made.txt; touch ${elsewhere}/outside 2>/dev/null || echo outside:refused; sh check.sh`,
      options,
    );
    expect(r).toMatchObject({ passed: false, exitCode: 5, signal: null, timedOut: false });
    expect(r.output).toBe("outside:refused\nout\nerr\n");
    expect(readFileSync(join(project, "made.txt"), "utf8")).toBe("in-project\n");
    expect(existsSync(join(elsewhere, "outside"))).toBe(false);
    expect((await runGate("test -w .", options)).passed).toBe(true);
  });

  it("a timed-out gate's processes die, those it put in the background too", async () => {
    const { options } = await sandboxed();
    // A word no other process has: the sleeps are found by it on the host.
    const word = `60.${process.pid}${Date.now() % 1000}`;
    const r = await runGate(`sleep ${word} & setsid sleep ${word} & echo started; sleep ${word}`, {
      ...options,
      timeoutMs: 1_000,
      killGraceMs: 200,
    });
    expect(r).toMatchObject({ passed: false, timedOut: true });
    expect(r.output).toBe("started\n");
    expect(await eventually(() => processesWith(word).length === 0)).toBe(true);
  });
});
