// Gates: shell commands that decide whether a run is done. Each runs in the working directory in its own
// process group (so a timeout kills the test runner and everything it started), with stdout and stderr
// interleaved as a terminal would show them, and capped head + tail for the model.

import { spawn } from "node:child_process";
import { longTimeout } from "../../config/long-timeout.js";
import { killGroup } from "../../kernel/host-exit.js";
import type { SpawnCommand } from "../../kernel/sandbox/types.js";

export interface GateOptions {
  cwd: string;
  /** Default 300 000 (5 minutes). */
  timeoutMs?: number;
  /** Characters of output kept (head + tail); default 8 000. */
  outputCap?: number;
  /** Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Aborting kills the gate's process group; the result says it was interrupted. */
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL on timeout or abort; default 2 000. */
  killGraceMs?: number;
  /**
   * Runs the gate's shell inside something: a sandboxed session's gates run in its sandbox (the gate's
   * script sits in the project, which the kernels can rewrite). Its process group is still the gate's.
   */
  wrap?: (command: SpawnCommand) => SpawnCommand;
}

export interface GateResult {
  command: string;
  /** null when the shell was killed by a signal or could not start. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Exit code 0, nothing else: a gate checks only what its command checks. */
  passed: boolean;
  timedOut: boolean;
  interrupted: boolean;
  /** stdout and stderr interleaved, capped: head and tail with a marker in between. */
  output: string;
  /** Characters the command printed in total. */
  outputChars: number;
  truncated: boolean;
  durationMs: number;
  /** Why the shell could not be started, if it could not. */
  error?: string;
}

export interface GatesRun {
  /** True when every command ran and exited 0. */
  passed: boolean;
  /** Results of the commands that ran, in order; the last one failed unless all passed. */
  results: GateResult[];
  /** Commands not run because an earlier one failed. */
  skipped: string[];
}

const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_OUTPUT_CAP = 8_000;

/** Head and tail of a stream of text, never holding more than `cap` characters. */
class CappedText {
  private head = "";
  private tail = "";
  total = 0;
  constructor(private readonly cap: number) {}

  push(chunk: string): void {
    this.total += chunk.length;
    const headRoom = Math.ceil(this.cap / 2) - this.head.length;
    if (headRoom > 0) {
      this.head += chunk.slice(0, headRoom);
      chunk = chunk.slice(headRoom);
    }
    const tailCap = Math.floor(this.cap / 2);
    this.tail = (this.tail + chunk).slice(-tailCap);
  }

  text(): { output: string; truncated: boolean } {
    const omitted = this.total - this.head.length - this.tail.length;
    if (omitted <= 0) return { output: this.head + this.tail, truncated: false };
    return {
      output: `${this.head}\n[... ${omitted.toLocaleString("en-US")} characters omitted ...]\n${this.tail}`,
      truncated: true,
    };
  }
}

export function runGate(command: string, options: GateOptions): Promise<GateResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const grace = options.killGraceMs ?? 2_000;
  const captured = new CappedText(options.outputCap ?? DEFAULT_OUTPUT_CAP);
  const started = Date.now();
  return new Promise((resolve) => {
    // `exec 2>&1` on its own line runs before the command is parsed, so even the shell's own syntax
    // errors arrive on the one pipe, in order with everything else.
    const shell: SpawnCommand = {
      file: "/bin/sh",
      args: ["-c", `exec 2>&1\n${command}`],
      env: options.env ?? process.env,
      cwd: options.cwd,
    };
    const run = options.wrap ? options.wrap(shell) : shell;
    const child = spawn(run.file, run.args, {
      cwd: run.cwd,
      env: run.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let timedOut = false;
    let interrupted = false;
    let spawnError: string | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const kill = (signal: NodeJS.Signals) => child.pid !== undefined && killGroup(child.pid, signal);
    const stop = () => {
      kill("SIGTERM");
      killTimer = setTimeout(() => kill("SIGKILL"), grace);
    };
    const timer = longTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = () => {
      interrupted = true;
      stop();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding("utf8");
      stream.on("data", (d: string) => captured.push(d));
    }
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      timer.clear();
      clearTimeout(killTimer);
      options.signal?.removeEventListener("abort", onAbort);
      const { output, truncated } = captured.text();
      const exitCode = exit?.code ?? null;
      resolve({
        command,
        exitCode,
        signal: exit?.signal ?? null,
        passed: exitCode === 0 && !timedOut && !interrupted && spawnError === undefined,
        timedOut,
        interrupted,
        output,
        outputChars: captured.total,
        truncated,
        durationMs: Date.now() - started,
        ...(spawnError !== undefined ? { error: spawnError } : {}),
      });
    };
    child.on("error", (err) => {
      spawnError = err.message;
      finish();
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // Whatever the command left running in its group would hold the pipe open and outlive the gate.
      kill("SIGKILL");
      // A process that left the group (setsid) may still hold the pipe: stop waiting for it.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, 1_000).unref();
    });
    child.on("close", finish);
  });
}

/** Runs the commands in order and stops at the first that fails. */
export async function runGates(commands: readonly string[], options: GateOptions): Promise<GatesRun> {
  const results: GateResult[] = [];
  for (const [i, command] of commands.entries()) {
    const result = await runGate(command, options);
    results.push(result);
    if (!result.passed) return { passed: false, results, skipped: commands.slice(i + 1) };
  }
  return { passed: true, results, skipped: [] };
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** One line about one gate: what ran and how it ended, nothing about what that might mean. */
export function describeGateResult(r: GateResult): string {
  const name = `gate \`${r.command}\``;
  if (r.error !== undefined) return `${name} could not be started: ${r.error}`;
  if (r.timedOut) return `${name} timed out after ${seconds(r.durationMs)}; its processes were killed`;
  if (r.interrupted) return `${name} was interrupted after ${seconds(r.durationMs)}`;
  if (r.exitCode === null)
    return `${name} was killed by ${r.signal ?? "a signal"} after ${seconds(r.durationMs)}`;
  const verdict = r.passed ? "passed" : "failed";
  return `${name} ${verdict} (exit ${r.exitCode}, ${seconds(r.durationMs)})`;
}

interface DescribeOptions {
  /** Append the output of the gate that failed (for the model); default false. */
  failureOutput?: boolean;
}

/** A short report of a gates run; a pass is reported as the exit codes it was, not as "tests pass". */
export function describeGateResults(run: GatesRun, options: DescribeOptions = {}): string {
  const lines = run.results.map(describeGateResult);
  for (const command of run.skipped) lines.push(`gate \`${command}\` not run (an earlier gate failed)`);
  const total = run.results.length + run.skipped.length;
  const passed = run.results.filter((r) => r.passed).length;
  const end = run.passed ? "." : "; the run is not done.";
  lines.push(`${passed} of ${total} gate command${total === 1 ? "" : "s"} exited 0${end}`);
  const failed = run.results.find((r) => !r.passed);
  if (options.failureOutput && failed) {
    const note = failed.truncated
      ? ` (${failed.outputChars.toLocaleString("en-US")} characters, capped)`
      : "";
    lines.push("", `Output of \`${failed.command}\`${note}:`, "```", failed.output.trimEnd(), "```");
  }
  return lines.join("\n");
}
