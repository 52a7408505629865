import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeGateResult, describeGateResults, runGate, runGates } from "../../src/agent/gates/gates.js";
import { GateStall } from "../../src/agent/gates/stall.js";
import { tempDir } from "../support/cli.js";
import { eventually } from "../support/wait.js";

let dirs: { cleanup: () => void }[] = [];
afterEach(() => {
  for (const d of dirs) d.cleanup();
  dirs = [];
});
function cwd(): string {
  const d = tempDir("relm-gates-");
  dirs.push(d);
  return d.path;
}

/** Running, not a zombie waiting for whoever adopted it to reap it. */
function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

/** Waits (boundedly) for a process to be gone; the assertion is that it goes, not how fast. */
function gone(pid: number): Promise<boolean> {
  return eventually(() => !alive(pid));
}

describe("runGate", () => {
  it("passes on exit 0 and runs in the working directory", async () => {
    const dir = cwd();
    const r = await runGate("pwd", { cwd: dir });
    expect(r).toMatchObject({ passed: true, exitCode: 0, signal: null, timedOut: false, truncated: false });
    expect(r.output.trim()).toBe(realpathSync(dir));
    expect(r.outputChars).toBe(r.output.length);
  });

  it("fails on any other exit code and keeps stdout and stderr in the order they were written", async () => {
    const r = await runGate("for i in 1 2 3; do echo out$i; echo err$i >&2; done; exit 3", { cwd: cwd() });
    expect(r.passed).toBe(false);
    expect(r.exitCode).toBe(3);
    expect(r.output).toBe("out1\nerr1\nout2\nerr2\nout3\nerr3\n");
  });

  it("captures the shell's own syntax errors", async () => {
    const r = await runGate("if then fi", { cwd: cwd() });
    expect(r.passed).toBe(false);
    expect(r.exitCode).toBe(2);
    expect(r.output).toMatch(/syntax error/i);
  });

  it("kills the whole process group on timeout", async () => {
    const dir = cwd();
    const r = await runGate("sleep 60 & echo $! > bg.pid; echo started; sleep 60", {
      cwd: dir,
      timeoutMs: 500,
      killGraceMs: 200,
    });
    expect(r).toMatchObject({ passed: false, timedOut: true, exitCode: null });
    expect(r.output).toBe("started\n");
    expect(describeGateResult(r)).toMatch(/timed out after .* its processes were killed/);
    const bg = Number(readFileSync(join(dir, "bg.pid"), "utf8"));
    expect(await gone(bg)).toBe(true);
  });

  it("kills what a passing command left running in the background", async () => {
    const dir = cwd();
    const r = await runGate("sleep 60 & echo $! > bg.pid", { cwd: dir });
    expect(r.passed).toBe(true);
    expect(await gone(Number(readFileSync(join(dir, "bg.pid"), "utf8")))).toBe(true);
  });

  it("caps the output to its head and tail and counts what was printed", async () => {
    const r = await runGate("echo FIRST; seq 1 100000; echo LAST", { cwd: cwd(), outputCap: 1000 });
    expect(r.passed).toBe(true);
    expect(r.truncated).toBe(true);
    expect(r.outputChars).toBeGreaterThan(500_000);
    expect(r.output.startsWith("FIRST\n1\n2\n")).toBe(true);
    expect(r.output.endsWith("100000\nLAST\n")).toBe(true);
    expect(r.output).toMatch(/\[\.\.\. [\d,]+ characters omitted \.\.\.\]/);
    expect(r.output.length).toBeLessThan(1100);
  });

  it("stops when its signal aborts", async () => {
    const controller = new AbortController();
    const pending = runGate("sleep 60", { cwd: cwd(), signal: controller.signal, killGraceMs: 200 });
    controller.abort();
    const r = await pending;
    expect(r).toMatchObject({ passed: false, interrupted: true, timedOut: false });
  });

  it("reports a working directory that does not exist as a gate that could not start", async () => {
    const r = await runGate("true", { cwd: join(cwd(), "missing") });
    expect(r.passed).toBe(false);
    expect(describeGateResult(r)).toMatch(/could not be started/);
  });
});

describe("runGates", () => {
  it("runs in order and stops at the first failure, naming what was not run", async () => {
    const dir = cwd();
    const run = await runGates(["echo a > a.txt", "test -f a.txt && exit 1", "echo c > c.txt"], { cwd: dir });
    expect(run.passed).toBe(false);
    expect(run.results.map((r) => r.exitCode)).toEqual([0, 1]);
    expect(run.skipped).toEqual(["echo c > c.txt"]);
    expect(existsSync(join(dir, "c.txt"))).toBe(false);
    const text = describeGateResults(run);
    expect(text).toMatch(/gate `echo a > a.txt` passed \(exit 0/);
    expect(text).toMatch(/gate `test -f a.txt && exit 1` failed \(exit 1/);
    expect(text).toMatch(/gate `echo c > c.txt` not run \(an earlier gate failed\)/);
    expect(text).toMatch(/1 of 3 gate commands exited 0; the run is not done\./);
  });

  it("describes a pass as the exit codes it was, never as more", async () => {
    const run = await runGates(["true", "echo ok"], { cwd: cwd() });
    expect(run.passed).toBe(true);
    const text = describeGateResults(run);
    expect(text).toMatch(/^gate `true` passed \(exit 0, [\d.]+ s\)$/m);
    expect(text).toMatch(/2 of 2 gate commands exited 0\.$/);
    expect(text).not.toMatch(/all tests|tests pass|success|verified|correct/i);
  });

  it("can append the failing gate's output for the model", async () => {
    const run = await runGates(["echo 'expected 2, got 3'; exit 1"], { cwd: cwd() });
    const text = describeGateResults(run, { failureOutput: true });
    expect(text).toContain("Output of `echo 'expected 2, got 3'; exit 1`:\n```\nexpected 2, got 3\n```");
  });
});

describe("GateStall", () => {
  it("counts failures of the same gate with the same workspace, and resets on change or pass", async () => {
    const dir = cwd();
    const failing = await runGates(["exit 1"], { cwd: dir });
    const other = await runGates(["true", "exit 2"], { cwd: dir });
    const passing = await runGates(["true"], { cwd: dir });
    const stall = new GateStall();
    expect(stall.record(failing, "tree-a")).toBe(1);
    expect(stall.record(failing, "tree-a")).toBe(2);
    expect(stall.record(failing, "tree-a")).toBe(3);
    expect(stall.record(failing, "tree-b")).toBe(1);
    expect(stall.record(other, "tree-b")).toBe(1);
    expect(stall.record(passing, "tree-b")).toBe(0);
    expect(stall.record(failing, null)).toBe(1);
    expect(stall.record(failing, null)).toBe(1);
  });
});
