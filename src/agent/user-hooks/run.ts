// Runs one hook command (docs/hooks.md): `/bin/sh -c COMMAND` in its own process group, the event's
// JSON on stdin, stdout and stderr kept apart (stdout may be a JSON decision, stderr is the reason a
// blocking hook gives), killed with its group at its timeout. Never throws: a hook that cannot start or
// runs out of time is a result like any other, which the caller reports as a notice.

import { spawn } from "node:child_process";
import { longTimeout } from "../../config/long-timeout.js";
import { killGroup } from "../../kernel/host-exit.js";
import type { SpawnCommand } from "../../kernel/sandbox/types.js";

export interface HookRun {
  /** null when killed by a signal, timed out or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not start. */
  error?: string;
  durationMs: number;
}

interface HookRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** A sandboxed session's untrusted hooks run inside its sandbox. */
  wrap?: (command: SpawnCommand) => SpawnCommand;
}

/** What a hook may print that relm keeps (a runaway hook must not fill the host's memory). */
const KEEP_CHARS = 64_000;

export function runHookCommand(command: string, input: unknown, options: HookRunOptions): Promise<HookRun> {
  const started = Date.now();
  const shell: SpawnCommand = { file: "/bin/sh", args: ["-c", command], env: options.env, cwd: options.cwd };
  const run = options.wrap ? options.wrap(shell) : shell;
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let error: string | undefined;
    let finished = false;
    const child = spawn(run.file, run.args, {
      cwd: run.cwd,
      env: run.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const kill = () => child.pid !== undefined && killGroup(child.pid, "SIGKILL");
    const timer = longTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const finish = (code: number | null) => {
      if (finished) return;
      finished = true;
      timer.clear();
      resolve({
        exitCode: timedOut ? null : code,
        stdout,
        stderr,
        timedOut,
        ...(error !== undefined ? { error } : {}),
        durationMs: Date.now() - started,
      });
    };
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      if (stdout.length < KEEP_CHARS) stdout += d.slice(0, KEEP_CHARS - stdout.length);
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < KEEP_CHARS) stderr += d.slice(0, KEEP_CHARS - stderr.length);
    });
    child.on("error", (err) => {
      error = err.message;
      finish(null);
    });
    child.on("exit", (code) => {
      // What the hook left running in its group would hold the pipes open and outlive it.
      kill();
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code);
      }, 1_000).unref();
      child.on("close", () => finish(code));
    });
    // A hook that does not read its stdin closes the pipe early: that is not its failure.
    child.stdin.on("error", () => {});
    child.stdin.end(`${JSON.stringify(input)}\n`);
  });
}
