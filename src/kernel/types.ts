import type { SnapshotCaps } from "../config/config.js";
import type { Launcher } from "./launchers/types.js";
import type { ProcessWrapper } from "./sandbox/types.js";
// The Python execution environment as the rest of relm sees it. No model concepts here.

export interface PythonInfo {
  /** Absolute path of the interpreter. */
  path: string;
  /** e.g. "3.11.2" */
  version: string;
  /** IPython version, or null when this interpreter cannot import IPython (plain-exec fallback). */
  ipython: string | null;
  /** The top-level modules it has apart from any project: local probes only (python.ts LOCAL_PROBE). */
  modules?: ModuleListing;
}

/** What a local interpreter can import apart from a project's folder and PYTHONPATH (python.ts). */
interface ModuleListing {
  /** Top-level module names: built in, or in one of `dirs`. */
  names: string[];
  /** What a module file's name may end with (importlib.machinery.all_suffixes()). */
  suffixes: string[];
  /** Its sys.path directories that were listed. */
  dirs: string[];
}

export interface CellImage {
  /** PNG from the kernel's display(); the agent adds look()'s images of the other types. */
  mimeType: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
  /** base64 */
  data: string;
}

type CellStatus =
  | "ok" // ran to the end
  | "error" // raised an exception (traceback is in output)
  | "timeout" // hit the cell timeout; interrupted (variables kept) or killed (see `note`)
  | "crashed"; // the kernel process died during the cell; it was restarted and variables were lost

export interface CellResult {
  /** IPython execution count of the cell (In[n]); the full output is `_out[n]` in the kernel. */
  executionCount: number;
  status: CellStatus;
  /** What the model should see: stdout, stderr, subprocess output, rich reprs, capped head + tail. */
  output: string;
  /** Length of the full output in characters, before the cap. */
  outputChars: number;
  truncated: boolean;
  /** Lines of the full output, when it was truncated (views fold to lines). */
  outputLines?: number;
  /** Where the full output was written when it was truncated (absolute path), if an output dir was given. */
  fullOutputPath?: string;
  error?: { name: string; value: string };
  /** A shell command of the cell (`!cmd`) exited with this non-zero status; the cell itself went on. */
  shellExitCode?: number;
  images: CellImage[];
  /** Facts the model must be told, e.g. "The kernel was restarted; all variables were lost." */
  note?: string;
  durationMs: number;
}

export interface VariableSummary {
  name: string;
  type: string;
  /** Human-readable size, e.g. "20,971,520 chars" or "3 items". */
  size: string;
  /** Short repr, at most ~200 chars. */
  preview: string;
}

/** Text, a file's content (read by the kernel), or a pickle file written by another kernel. */
export type VariableSource = { text: string } | { file: string } | { pickle: string };

/** What a snapshot of the user's variables holds, and what it could not hold (told to the model). */
export interface SnapshotReport {
  saved: string[];
  skipped: { name: string; reason: string }[];
  bytes: number;
  /**
   * The kernel got another message (the next cell) before this snapshot was done and gave it up: the
   * previous snapshot stays as it was; the next one (after the next cell) starts over.
   */
  superseded?: boolean;
}

export interface RestoreReport {
  restored: VariableSummary[];
  failed: { name: string; reason: string }[];
  /** Variables the snapshot could not hold in the first place. */
  skipped: { name: string; reason: string }[];
}

/** A request from Python code back to the host (rlm, llm, submit, ...). */
/**
 * A call from Python to the host. `gone` is aborted when the kernel process that made it exits: its answer
 * can reach nobody, and a call that waits (an approval asking a person) should stop waiting.
 */
type HostRequestHandler = (method: string, params: unknown, gone: AbortSignal) => Promise<unknown>;

export interface KernelOptions {
  cwd: string;
  /** The host environment; it is scrubbed of secrets before the kernel sees it. */
  env?: NodeJS.ProcessEnv;
  /** Names allowed through the scrub on purpose (--pass-env). */
  passEnv?: string[];
  /** Interpreter to use; default: discovered (RELM_PYTHON, python3 on PATH, /usr/bin/python3), uncached. */
  python?: PythonInfo;
  /** Per-cell timeout; default 300 000. */
  cellTimeoutMs?: number;
  /** After SIGINT on timeout, wait this long before kill + restart; default 3000. */
  interruptGraceMs?: number;
  /** Characters of output shown to the model; default 20 000. */
  outputCap?: number;
  /** The variable snapshots' caps (config.json's snapshotMax*MB); default the runner's (64 MB, 256 MB, off). */
  snapshotCaps?: SnapshotCaps;
  /** Directory where full outputs of truncated cells are written (e.g. the session's outputs/). */
  outputDir?: string;
  /**
   * Values a variable snapshot must not keep (API keys, tokens: the values the journal redacts). The
   * host checks the files for them; they never reach the kernel (see snapshot-secrets.ts).
   */
  secrets?: readonly string[];
  /**
   * Restart the kernel as soon as it dies during a cell (default true). A child agent, which fails when
   * its kernel dies, says false: its kernel is restarted only if it is used again (a Slurm kernel's
   * restart is a new job, which could wait in the queue before the child's failure is reported).
   */
  restartAfterCrash?: boolean;
  /** Live output of the running cell, as it arrives. */
  onOutput?: (text: string) => void;
  onHostRequest?: HostRequestHandler;
  /**
   * Aborted: the first start is given up — the process is killed and startKernel rejects with
   * KernelStartError (a kernel started ahead of need, whose session ended without a cell).
   */
  startSignal?: AbortSignal;
  /** Called when the kernel process dies or restarts outside of shutdown(). */
  onLifecycle?: (event: KernelLifecycleEvent) => void;
  /**
   * Fork this kernel (and every restart of it) from a warm template instead of starting Python:
   * milliseconds instead of ~0.3 s. Falls back to spawning (saying why in the `started` event) when
   * the template is dead, uses another interpreter, or cannot fork.
   */
  template?: KernelTemplate;
  /**
   * Where the kernel runs (src/kernel/launchers/): default LOCAL. Kernels of any other launcher are
   * spawned (never forked from `template`); remote ones get relm's Python package over the pipe.
   */
  launcher?: Launcher;
}

/** A warm Python process that forks kernels (see startKernelTemplate). */
export interface KernelTemplate {
  /** The interpreter it runs (and its kernels run). */
  readonly python: PythonInfo;
  /** The template process; 0 where forking is unavailable (Windows). */
  readonly pid: number;
  /** False once it exited or was closed: kernels given it are then spawned. */
  readonly alive: boolean;
  /** Kernels forked from it that have not ended (not counting its spare). */
  readonly forkedAlive: number;
  /** Stops the template and kills every kernel forked from it. Idempotent. */
  close(): Promise<void>;
}

export interface KernelTemplateOptions {
  python: PythonInfo;
  /** The host environment; scrubbed of secrets before the template (and so /proc/PID/environ of every
   * kernel forked from it) sees it. Each kernel still gets its own scrubbed env after the fork. */
  env?: NodeJS.ProcessEnv;
  /** Private directory (0700) for the socket forked kernels connect to; default `$TMPDIR/relm-<uid>`. */
  socketDir?: string;
  /**
   * Start the template through this (the session's sandbox launcher): kernels forked from it are in
   * the same sandbox, and only kernels given the same launcher are forked from it.
   */
  wrapper?: ProcessWrapper;
  /** Aborted while the template starts: it is killed and the start rejects (a session that closes). */
  signal?: AbortSignal;
}

export type KernelLifecycleEvent =
  | {
      type: "started";
      pid: number;
      python: PythonInfo;
      startMs: number;
      /** Pid of the template this kernel was forked from; absent when it was spawned. */
      forkedFrom?: number;
      /** Why a kernel given a template was spawned instead (template dead, fork failed, ...). */
      fallback?: string;
      /** The kernel URI it was started through, when not `local` (src/kernel/launchers/). */
      launcher?: string;
      /** What the person should know about its start: skills it cannot use (python/relm/skillpath.py). */
      warnings?: string[];
      /** The skill folders (of those this kernel was given) whose package it cannot import. */
      unusedSkillDirs?: string[];
    }
  | {
      type: "died";
      pid: number;
      code: number | null;
      signal: string | null;
      /** The runner's own stderr (e.g. a fatal error's traceback), for diagnostics. */
      stderr?: string;
    }
  | { type: "restarted"; pid: number; reason: string }
  /** The kernel waits in its launcher's queue (a Slurm job not yet granted); `said` is the client's line. */
  | { type: "queued"; said: string };

/** How long one cell may run, and what its note calls the limit when it is reached. */
export interface ExecuteOptions {
  /** Default KernelOptions.cellTimeoutMs. */
  timeoutMs?: number;
  /** After SIGINT at the timeout, wait this long before kill + restart; default KernelOptions.interruptGraceMs. */
  interruptGraceMs?: number;
  /** The limit in the model's note, e.g. "the time budget ran out"; default "cell timeout". */
  timeoutReason?: string;
  /**
   * Holds the cell's first change to `tree` (a write, a removal, a started process) while the file `file`
   * exists: the session's first checkpoint is still being taken (python/relm/writegate.py).
   */
  writeGate?: { file: string; tree: string };
}

export interface Kernel {
  readonly python: PythonInfo;
  readonly pid: number;
  /** Runs one cell. Never rejects for cell errors, timeouts or crashes: those are CellResult statuses. */
  execute(code: string, options?: ExecuteOptions): Promise<CellResult>;
  setVariable(name: string, source: VariableSource): Promise<VariableSummary>;
  /** User variables currently defined (no modules, functions of relm, or IPython internals). */
  variables(): Promise<VariableSummary[]>;
  /**
   * Pickles the user's variables into `dir` (one file each; values over the caps, values holding a
   * secret and what cannot be pickled are listed as skipped; unchanged values are not written again).
   * Runs while the kernel waits and gives way to the next message (`superseded`); the next cell does
   * not wait for it. One at a time: a call waits for the one before it to be settled.
   */
  /**
   * Pickles the user's variables into `dir`. `final`: the kernel is about to be released or stopped, so
   * the round never gives way and writes the large variables no background writer has (bigvars.py).
   */
  snapshot(dir: string, options?: { final?: boolean }): Promise<SnapshotReport>;
  /** Loads a snapshot taken by snapshot() (in this or an earlier kernel). */
  restore(dir: string): Promise<RestoreReport>;
  /** SIGINT to the running cell (and its subprocesses); no-op when idle. */
  interrupt(): void;
  /** Kills the process group and waits for it to be gone. Idempotent. */
  shutdown(): Promise<void>;
}
