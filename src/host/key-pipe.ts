// The hand-over of secrets (API keys, passwords, URLs with one) from a relm process to a relm process it
// starts: a session host, the stub that holds an idle session's place, the waker. They cross on a pipe,
// not in the environment, because /proc/PID/environ of every process of the user is readable by the
// user's other processes, a cell without --sandbox among them, for as long as the process runs. The
// child reads the pipe once as it starts (before anything reads a key) and closes it.
//
// Node built-ins only: the stub (src/host/stub.ts) imports this and must cost what bare Node does.
import { type ChildProcess, type SpawnOptions, type StdioOptions, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import type { Writable } from "node:stream";

/** Names the descriptor the keys arrive on, in the child's environment (a number, not a secret). */
const KEYS_FD_VAR = "RELM_KEYS_FD";

/** Secret variables by name. */
export type Keys = Record<string, string>;

/**
 * `spawn`, with `keys` written to a pipe at the first descriptor after `stdio` and the child told which
 * one in KEYS_FD_VAR. `options.env` must already be free of them. Written at once, so a parent that
 * exits right after (a host handing over to its stub) has still given them.
 */
export function spawnWithKeys(
  command: string,
  args: string[],
  options: SpawnOptions & { stdio: Exclude<StdioOptions, string>; env: NodeJS.ProcessEnv },
  keys: Keys,
): ChildProcess {
  const env = { ...options.env };
  delete env[KEYS_FD_VAR];
  if (Object.keys(keys).length === 0) return spawn(command, args, { ...options, env });
  const fd = options.stdio.length;
  const child = spawn(command, args, {
    ...options,
    env: { ...env, [KEYS_FD_VAR]: String(fd) },
    stdio: [...options.stdio, "pipe"],
  });
  const pipe = child.stdio[fd] as Writable | null;
  // A child that exits before reading (a bad flag) closes its end: that is its own failure to report.
  pipe?.on("error", () => undefined);
  pipe?.end(JSON.stringify(keys));
  return child;
}

/**
 * Starts a detached Node process running `args` (not waited for): its output appended to `logPath`,
 * the descriptors `fds` passed on after stdio, and `keys` on a pipe after them (spawnWithKeys).
 */
export function spawnDetached(
  args: string[],
  logPath: string,
  options: { cwd?: string; env: NodeJS.ProcessEnv; keys: Keys; fds?: (number | "ignore")[] },
): ChildProcess {
  const log = openSync(logPath, "a", 0o600);
  try {
    const stdio = ["ignore" as const, log, log, ...(options.fds ?? [])];
    const child = spawnWithKeys(
      process.execPath,
      args,
      { cwd: options.cwd, env: options.env, detached: true, stdio },
      options.keys,
    );
    child.unref();
    return child;
  } finally {
    closeSync(log); // the child has its own copy
  }
}

/**
 * The keys this process's parent handed over, read once (later calls find none): the variable naming
 * the pipe is removed and the pipe closed. None when there was no pipe or it held nothing readable.
 */
export function receiveKeys(env: NodeJS.ProcessEnv = process.env): Keys {
  const named = env[KEYS_FD_VAR];
  if (named === undefined) return {};
  delete env[KEYS_FD_VAR];
  const fd = Number(named);
  if (!Number.isInteger(fd) || fd < 3) return {};
  try {
    const parsed = JSON.parse(readFileSync(fd, "utf8")) as unknown;
    const keys: Keys = {};
    if (parsed && typeof parsed === "object")
      for (const [name, value] of Object.entries(parsed)) if (typeof value === "string") keys[name] = value;
    return keys;
  } catch {
    return {};
  } finally {
    try {
      closeSync(fd);
    } catch {
      // Not open: nothing to close.
    }
  }
}
