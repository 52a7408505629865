// `slurm://[partition][?cpus=N&mem=..&time=..&gres=..&account=..&qos=..&constraint=..&alloc=session]`:
// each kernel is one Slurm job step started by `srun`, its stdin/stdout the protocol (`--unbuffered`:
// srun forwards each write at once instead of when its buffer fills). The kernel's agent loop stays in
// the host (model calls are I/O); only Python runs on the cluster.
//
// Without `alloc=session` every kernel is its own job (srun allocates, runs one step, releases). With
// it, one allocation is held for the host's life (salloc, made on the first kernel's start and
// relinquished when the host's process ends, however it ends) and every kernel is a step in it (`srun --jobid=J --overlap`:
// kernels mostly wait on the model, so they share the allocation's CPUs rather than queue for them).
// Run inside an allocation already (SLURM_JOB_ID set, e.g. relm started under salloc or sbatch),
// plain srun makes steps in that job (Slurm's own rule, kept), sharing its CPUs (--overlap) as well.
//
// Transport "remote": a compute node need not share the host's disk; the bootstrap sends relm's
// Python package over stdin and files cross over the protocol. srun starts the step in the host's
// working directory (its default; on a cluster the project usually sits on a shared filesystem), or in
// `workdir=` when given. The step's environment is the kernel's scrubbed one (srun's default
// --export=ALL), so `module load` done before relm starts carries over, and no secret does.

import { type ChildProcess, execFile, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { promisify } from "node:util";
import { KernelStartError } from "../errors.js";
import { notInstalled, which } from "../which.js";
import { RemoteLauncher } from "./remote.js";
import type { LaunchCommand, LaunchContext, LauncherScheme } from "./types.js";
import { launcherUsage, UriOptions } from "./uri.js";

const SYNTAX =
  "slurm://[partition][?cpus=N&mem=SIZE&time=LIMIT&gres=..&account=..&qos=..&constraint=..&alloc=session&nodes=N&python=PATH&workdir=DIR]";
const USE = `Use ${SYNTAX}`;
const OPTIONS = [
  "cpus",
  "mem",
  "time",
  "gres",
  "account",
  "qos",
  "constraint",
  "alloc",
  "nodes",
  "python",
  "workdir",
] as const;

interface SlurmTarget {
  partition?: string;
  cpus?: number;
  mem?: string;
  time?: string;
  gres?: string;
  account?: string;
  qos?: string;
  constraint?: string;
  /** Hold one allocation for the session and run kernels as steps in it. */
  session: boolean;
  /** Nodes of the session's allocation (alloc=session only). */
  nodes?: number;
  python: string;
  workdir?: string;
}

const run = promisify(execFile);

/** The job name every kernel step (and the session's allocation) carries, for squeue/sacct. */
const SLURM_JOB_NAME = "relm-kernel";

class SlurmLauncher extends RemoteLauncher<SlurmTarget> {
  readonly scheme = "slurm";

  /** alloc=session: makes (once per host, per URI) the allocation the kernels run in. */
  async prepare(ctx: LaunchContext): Promise<void> {
    if (this.target.session) await awaitAllocation(sessionAllocation(this.uri, this.target, ctx), ctx.signal);
  }

  command(ctx: LaunchContext): LaunchCommand {
    const t = this.target;
    // Not --quiet: srun's "queued and waiting for resources" / "has been allocated resources" are
    // how queued() tells a job waiting in the queue from a kernel that does not start.
    const args = ["--unbuffered", `--job-name=${SLURM_JOB_NAME}`, "--ntasks=1", "--nodes=1"];
    // The step ends when its one task does, and a task killed by a signal fails the step at once.
    args.push("--kill-on-bad-exit=1");
    const jobId = t.session ? allocations.get(this.uri)?.jobId : undefined;
    if (t.session && !jobId) {
      throw new KernelStartError(`no Slurm allocation for ${this.uri} (prepare() was not awaited)`, "");
    }
    // relm itself runs in an allocation (under sbatch or salloc): srun makes steps of that job.
    const inherited = !t.session && Boolean(ctx.env.SLURM_JOB_ID);
    if (jobId || inherited) {
      // A step of an allocation whose resources were asked for already: kernels mostly wait on the
      // model, so steps share them (--overlap) instead of queueing for a CPU each.
      if (jobId) args.push(`--jobid=${jobId}`);
      args.push("--overlap");
      if (t.cpus !== undefined) args.push(`--cpus-per-task=${t.cpus}`);
      if (t.gres !== undefined) args.push(`--gres=${t.gres}`);
    } else {
      args.push(...resourceArgs(t));
    }
    args.push("--", ...ctx.inner);
    return { file: "srun", args };
  }

  /** What srun said about a step that ended under it (cancelled, node failure, time limit), if anything. */
  explainExit(stderr: string): string | undefined {
    return slurmExitReason(stderr);
  }

  queued(stderr: string): boolean {
    return slurmQueued(stderr);
  }

  /** srun is installed, the cluster answers sinfo, and it has the partition: nothing is submitted. */
  async preflight(env: NodeJS.ProcessEnv): Promise<string | undefined> {
    if (!which("srun", env)) return notInstalled("srun", env);
    let listed: string;
    try {
      listed = (await run("sinfo", ["--noheader", "--format=%R"], { env, timeout: 30_000 })).stdout;
    } catch (e) {
      const said = String((e as { stderr?: string }).stderr ?? "")
        .trim()
        .split("\n")
        .at(-1);
      return `sinfo could not ask the cluster: ${said || (e as Error).message}`;
    }
    const partitions = [
      ...new Set(
        listed
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean),
      ),
    ];
    const missing = (this.target.partition ?? "").split(",").filter((p) => p && !partitions.includes(p));
    if (missing.length === 0) return undefined;
    const names = missing.map((p) => `"${p}"`).join(", ");
    return `the cluster has no partition ${names} (sinfo lists: ${partitions.join(", ") || "none"})`;
  }
}

/**
 * Whether srun's last word on the job or step is that it waits: "job 12 queued and waiting for
 * resources" (a new job), "step creation temporarily disabled, retrying" (a step of a busy allocation),
 * not yet followed by "job 12 has been allocated resources" or "Step created for ...".
 */
export function slurmQueued(stderr: string): boolean {
  let waits = false;
  for (const m of stderr.matchAll(SRUN_WAIT_OR_GRANT)) waits = m[1] !== undefined;
  return waits;
}

/** srun's lines that it waits (group 1) or that it was granted, in one pass (called per stderr chunk). */
const SRUN_WAIT_OR_GRANT =
  /(queued and waiting for resources|step creation (?:temporarily|still) disabled)|has been allocated resources|Step created for/gi;

/** sbatch/salloc/srun flags for the target's resources (a new job). */
function resourceArgs(t: SlurmTarget): string[] {
  const args: string[] = [];
  if (t.partition) args.push(`--partition=${t.partition}`);
  if (t.cpus !== undefined) args.push(`--cpus-per-task=${t.cpus}`);
  if (t.mem !== undefined) args.push(`--mem=${t.mem}`);
  if (t.time !== undefined) args.push(`--time=${t.time}`);
  if (t.gres !== undefined) args.push(`--gres=${t.gres}`);
  if (t.account !== undefined) args.push(`--account=${t.account}`);
  if (t.qos !== undefined) args.push(`--qos=${t.qos}`);
  if (t.constraint !== undefined) args.push(`--constraint=${t.constraint}`);
  return args;
}

/**
 * Why Slurm ended a step, from srun's and slurmstepd's words on stderr: "the Slurm step was cancelled"
 * (scancel), "its node failed", "it reached its time limit", "it ran out of memory", "its task was killed"
 * when srun said only that; undefined when Slurm said nothing (the kernel itself crashed).
 */
export function slurmExitReason(stderr: string): string | undefined {
  const said =
    /\*\*\* (STEP|JOB) ([\d.]+) ON (\S+) CANCELLED AT \S+(?: DUE TO ([A-Z ]+?))?(?: \*\*\*|$)/m.exec(stderr);
  if (said) {
    const [, kind, id, node, due] = said;
    const what = `Slurm ${kind === "STEP" ? "step" : "job"} ${id} on ${node}`;
    if (due?.includes("TIME LIMIT")) return `${what} reached its time limit`;
    if (due?.includes("NODE FAIL")) return `${what} was ended by a node failure`;
    if (due?.includes("PREEMPTION")) return `${what} was preempted`;
    return `${what} was cancelled${due ? ` (${due.toLowerCase()})` : " (scancel)"}`;
  }
  if (/Node failure on (\S+)/.test(stderr))
    return `the Slurm node ${/Node failure on (\S+)/.exec(stderr)![1]} failed`;
  if (/oom-kill|Exceeded (job|step) memory limit/i.test(stderr)) return "the Slurm step ran out of memory";
  if (/Job step aborted/.test(stderr)) return "the Slurm step was aborted";
  const refused = /srun: error: (Unable to (?:allocate resources|create step)[^\n]*)/.exec(stderr);
  if (refused) return `Slurm refused the kernel: ${refused[1]}`;
  // scancel on a busy node: srun may report the killed task and exit before slurmstepd's "CANCELLED"
  // line reaches it (seen at load 10, 2 runs in 5). What killed it is then unknown; that it was a
  // SIGKILL under Slurm is still worth saying.
  const killed = /srun: error: (\S+): tasks? ([\d,-]+): Killed/.exec(stderr);
  if (killed)
    return `the Slurm step's task ${killed[2]} on ${killed[1]} was killed (scancel, a Slurm limit, or a kill on the node)`;
  return undefined;
}

interface Allocation {
  uri: string;
  /** Resolves with the job id once granted. */
  ready: Promise<string>;
  jobId?: string;
  /** Kernel starts waiting for it to be granted. */
  waiters: number;
  /** What salloc said so far. */
  said: string;
  /** The salloc process holding it; the allocation ends when its stdin closes. */
  holder: ChildProcess;
}

/** The session's allocations (alloc=session), one per URI, alive as long as this process. */
const allocations = new Map<string, Allocation>();

/**
 * Waits for `entry` to be granted, or for `signal` (the kernel's start given up, e.g. Ctrl-C). When the
 * last start waiting for a queued allocation gives up, salloc is ended: it withdraws its request (nobody
 * wants it any more, and its pipe would keep relm running), and the next kernel asks again.
 */
async function awaitAllocation(entry: Allocation, signal: AbortSignal | undefined): Promise<void> {
  if (entry.jobId) return;
  entry.waiters++;
  let gaveUp = false;
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      gaveUp = true;
      if (--entry.waiters === 0 && !entry.jobId) {
        if (allocations.get(entry.uri) === entry) allocations.delete(entry.uri);
        entry.holder.kill("SIGTERM");
      }
      reject(new KernelStartError("the kernel's start was cancelled", entry.said));
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([entry.ready, aborted]);
  } finally {
    if (!gaveUp) entry.waiters--;
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * One allocation held by `salloc ... sh -c 'cat >/dev/null'`: salloc runs its command once granted and
 * relinquishes the allocation when the command ends, and `cat` ends when its stdin, a pipe from this
 * process, closes. So the allocation goes with this process however it ends (exit, crash, SIGKILL):
 * the kernel closing its end is enough, no exit hook, and nothing is left for its time limit to end.
 */
function sessionAllocation(uri: string, t: SlurmTarget, ctx: LaunchContext): Allocation {
  const known = allocations.get(uri);
  if (known) return known;
  const args = [`--job-name=${SLURM_JOB_NAME}`, ...resourceArgs(t)];
  if (t.nodes !== undefined) args.push(`--nodes=${t.nodes}`);
  args.push("sh", "-c", "cat >/dev/null");
  const holder = spawn("salloc", args, {
    env: ctx.env,
    cwd: ctx.cwd,
    detached: true, // not in the terminal's process group: Ctrl-C is relm's to handle
    stdio: ["pipe", "ignore", "pipe"],
  });
  holder.stdin?.on("error", () => {});
  // Held for as long as this process runs, but never what keeps it running (once granted: a kernel
  // waiting for its allocation is something to wait for).
  holder.unref();
  (holder.stdin as Socket | null)?.unref();
  const entry: Allocation = {
    uri,
    holder,
    waiters: 0,
    said: "",
    ready: new Promise((resolve, reject) => {
      holder.stderr?.setEncoding("utf8");
      holder.stderr?.on("data", (text: string) => {
        entry.said = (entry.said + text).slice(-8192);
        const granted = /Granted job allocation (\d+)/.exec(entry.said);
        if (granted && !entry.jobId) {
          entry.jobId = granted[1]!;
          (holder.stderr as Socket | null)?.unref();
          resolve(entry.jobId);
        }
      });
      const failed = (why: string) => {
        if (allocations.get(uri) === entry) allocations.delete(uri); // the next kernel asks again
        if (!entry.jobId) reject(new KernelStartError(`salloc for ${uri} failed: ${why}`, entry.said));
      };
      holder.once("error", (e) => failed(e.message));
      holder.once("exit", (code, signal) => failed(signal ? `killed by ${signal}` : `exit code ${code}`));
    }),
  };
  allocations.set(uri, entry);
  return entry;
}

/** Ends the allocations this process holds (tests; a process that exits ends them anyway). */
export function releaseSlurmAllocations(): void {
  for (const a of allocations.values()) a.holder.stdin?.end();
  allocations.clear();
}

function parseSlurm(uri: string, where: string): SlurmLauncher {
  const m = /^slurm:(?:\/\/([^?/]*)\/?)?(?:\?(.*))?$/.exec(uri);
  if (!m) throw launcherUsage(where, uri, "not a slurm URI", `${USE}, e.g. slurm://gpu?cpus=4&gres=gpu:1.`);
  const [, partition = "", query = ""] = m;
  if (partition && !/^[A-Za-z0-9_.,-]+$/.test(partition)) {
    throw launcherUsage(where, uri, `"${partition}" is not a partition name`, `${USE}.`);
  }
  const opts = new UriOptions(query, OPTIONS, where, uri, SYNTAX);
  const count = (key: string): number | undefined => {
    const raw = opts.get(key);
    if (raw === undefined) return undefined;
    if (!/^[1-9]\d{0,5}$/.test(raw))
      throw launcherUsage(where, uri, `${key} must be a positive whole number, not "${raw}"`, `${USE}.`);
    return Number(raw);
  };
  const alloc = opts.get("alloc");
  if (alloc !== undefined && !["session", "job"].includes(alloc)) {
    throw launcherUsage(where, uri, `alloc must be session or job, not "${alloc}"`, `${USE}.`);
  }
  const session = alloc === "session";
  const nodes = count("nodes");
  if (nodes !== undefined && !session) {
    throw launcherUsage(
      where,
      uri,
      "nodes= sizes the session's allocation",
      "Add alloc=session, or leave nodes out.",
    );
  }
  const python = opts.python("Name the interpreter on the nodes, e.g. ?python=python3.11.");
  const name = /^[A-Za-z0-9_.,&|:[\]*-]+$/;
  const target: SlurmTarget = {
    session,
    python,
    partition: partition || undefined,
    cpus: count("cpus"),
    nodes,
    mem: opts.matching("mem", /^\d+[KMGT]?B?$/i, "4G"),
    time: opts.matching("time", /^(\d+-)?\d+(:\d+){0,2}$|^UNLIMITED$|^INFINITE$/i, "2:00:00"),
    gres: opts.matching("gres", /^[A-Za-z0-9_:,.-]+$/, "gpu:1"),
    account: opts.matching("account", name, "myproject"),
    qos: opts.matching("qos", name, "myproject"),
    constraint: opts.matching("constraint", name, "a100"),
    workdir: opts.get("workdir"),
  };
  const { workdir } = target;
  if (workdir !== undefined && !workdir.startsWith("/") && !workdir.startsWith("~")) {
    throw launcherUsage(
      where,
      uri,
      `workdir must be an absolute path on the nodes, not "${workdir}"`,
      `${USE}.`,
    );
  }
  return new SlurmLauncher(uri, target);
}

export const slurmScheme: LauncherScheme = { scheme: "slurm", syntax: SYNTAX, parse: parseSlurm };
