// Running git against the shadow repository, with an environment that cannot reach the user's own repo.

import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { UserError } from "../config/errors.js";

export class CheckpointError extends UserError {
  override readonly name = "CheckpointError";
}

interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

interface GitOptions {
  input?: string | Buffer;
  /** Exit codes that are not failures (e.g. 1 from `diff --quiet`). */
  okCodes?: number[];
  timeoutMs?: number;
}

/** Where the shadow repository lives and how git is called; fixed for one Checkpoints instance. */
export interface GitContext {
  git: string;
  gitDir: string;
  workTree: string;
  env: NodeJS.ProcessEnv;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const STALL_CHECK_MS = 1000;

/** Whether a thread of `pid` waits in open() of a FIFO for a writer (Linux; false where unknown). */
function openingFifo(pid: number): boolean {
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const wchan = readFileSync(`/proc/${pid}/task/${tid}/wchan`, "utf8").trim();
      if (wchan === "wait_for_partner" || wchan === "fifo_open") return true;
    }
  } catch {
    // Gone, or no /proc: the timeout still holds.
  }
  return false;
}

/**
 * The environment of every shadow git call. Nothing named GIT_* survives from the caller: GIT_DIR,
 * GIT_INDEX_FILE or GIT_WORK_TREE leaking in (say, relm started from a git hook) would point these
 * commands at the user's repository. HOME points into the shadow repo so no global config (hooks,
 * filters, aliases, signing) applies; the user's global excludes file is passed explicitly instead.
 */
export function shadowEnv(base: NodeJS.ProcessEnv, gitDir: string, workTree: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || k.startsWith("GIT_") || k === "XDG_CONFIG_HOME") continue;
    env[k] = v;
  }
  // zlib allocates and frees ~256 KB per object, and glibc gives that back to the kernel each time: on
  // some VMs the brk calls alone tripled the first snapshot's time. A larger trim threshold keeps it.
  const tunables = "glibc.malloc.trim_threshold=268435456:glibc.malloc.top_pad=67108864";
  return {
    ...env,
    GLIBC_TUNABLES: env.GLIBC_TUNABLES ? `${env.GLIBC_TUNABLES}:${tunables}` : tunables,
    HOME: gitDir,
    GIT_DIR: gitDir,
    GIT_WORK_TREE: workTree,
    GIT_INDEX_FILE: `${gitDir}/index`,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_AUTHOR_NAME: "relm",
    GIT_AUTHOR_EMAIL: "relm@localhost",
    GIT_COMMITTER_NAME: "relm",
    GIT_COMMITTER_EMAIL: "relm@localhost",
  };
}

export function runGit(ctx: GitContext, args: string[], options: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(ctx.git, args, {
      cwd: ctx.workTree,
      env: ctx.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    let err = "";
    let timedOut = false;
    let onFifo = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    // git reads each .gitignore of the project, which a cell can make a FIFO: git then waits for a
    // writer, and every checkpoint call took the whole timeout (the session's end, minutes).
    const stall = setInterval(() => {
      if (child.pid !== undefined && openingFifo(child.pid)) {
        onFifo = true;
        child.kill("SIGKILL");
      }
    }, STALL_CHECK_MS);
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      if (err.length < 64_000) err += d;
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      clearInterval(stall);
      reject(e);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
    child.on("close", (code) => {
      clearTimeout(timer);
      clearInterval(stall);
      const stdout = Buffer.concat(out);
      const what = `git ${args.slice(0, 2).join(" ")}`;
      if (onFifo) {
        return reject(
          new CheckpointError(
            `${what} waited on a FIFO in the project (a named pipe, likely a .gitignore): ` +
              "`find . -type p` lists them: remove it, and checkpoints work again",
          ),
        );
      }
      if (timedOut) {
        return reject(
          new CheckpointError(`${what} took longer than ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`),
        );
      }
      const exit = code ?? -1;
      if (exit !== 0 && !(options.okCodes ?? []).includes(exit)) {
        const detail = err.trim().split("\n").slice(-3).join(" / ");
        return reject(new CheckpointError(`${what} failed (exit ${exit}): ${detail || "no message"}`));
      }
      resolve({ stdout, stderr: err, code: exit });
    });
  });
}

/** stdout as text without the trailing newline. */
export async function gitText(ctx: GitContext, args: string[], options: GitOptions = {}): Promise<string> {
  return (await runGit(ctx, args, options)).stdout.toString("utf8").trimEnd();
}

/** NUL-separated stdout fields, without the empty last one. */
export function splitNul(buf: Buffer): string[] {
  const text = buf.toString("utf8");
  const parts = text.split("\0");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}

/** `git version 2.39.5` → [2, 39]; null when git is missing or says something else. */
export async function probeGit(git: string, env: NodeJS.ProcessEnv): Promise<[number, number] | null> {
  const ctx: GitContext = { git, gitDir: "", workTree: tmpdir(), env };
  try {
    const text = await gitText(ctx, ["--version"], { timeoutMs: 10_000 });
    const m = /(\d+)\.(\d+)/.exec(text);
    return m ? [Number(m[1]), Number(m[2])] : null;
  } catch {
    return null;
  }
}
