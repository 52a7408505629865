// A single-node Slurm "cluster" started by the tests themselves (munged, slurmctld, slurmd as root,
// no systemd), for the slurm:// launcher's tests and benches. Everything lives in a temp dir: its own
// munge key and socket, its own ports, state, spool and logs; nothing under /etc is touched. Clients
// (srun, squeue, scancel, relm itself) find it through SLURM_CONF in `cluster.env`.
//
// Recipe learned from /work/shared/tools/slurm-up.sh: ProctrackType=proctrack/linuxproc and
// TaskPlugin=task/none need no cgroups; accounting is off (no slurmdbd), so finished jobs are seen in
// the job completion log (jobcomp/filetxt) and running steps through `squeue --steps`.

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { closedPort, tempDir } from "./cli.js";
import { poll, until } from "./wait.js";

const exec = promisify(execFile);

export interface SlurmOptions {
  /** CPUs the node declares (default 2: this machine's cores). */
  cpus?: number;
  /**
   * Jobs allowed to share one CPU (OverSubscribe=FORCE:N). Default 32: with 2 CPUs, 64 jobs at once,
   * so a fan-out of 16–32 kernels (each an srun job of one CPU) is not queued behind the cores.
   */
  oversubscribe?: number;
}

export interface SlurmCluster {
  /** The temp dir holding config, state, logs and the munge key. */
  readonly root: string;
  /** Path of slurm.conf; clients need SLURM_CONF set to it. */
  readonly conf: string;
  /** The node's name (this machine's short hostname). */
  readonly node: string;
  /** The default partition's name. */
  readonly partition: string;
  /** process.env plus SLURM_CONF: give it to srun/squeue/scancel and to relm. */
  readonly env: NodeJS.ProcessEnv;
  /** Runs a Slurm client command against this cluster; resolves with its stdout. */
  run(command: string, args: string[]): Promise<string>;
  /** Running steps as `JOBID.STEPID NAME` lines (`squeue --steps`). */
  steps(): Promise<{ step: string; name: string }[]>;
  /** The job completion log (jobcomp/filetxt): one line per finished job. */
  completedJobs(): string[];
  /** Cancels every job, stops the daemons (by pid) and deletes the temp dir. Idempotent. */
  stop(): Promise<void>;
}

/** Whether this machine can start a test cluster (the daemons installed, running as root). */
export function slurmAvailable(): boolean {
  return (
    process.platform === "linux" &&
    process.getuid?.() === 0 &&
    ["/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd"].every((p) => existsSync(p)) &&
    whichSync("srun")
  );
}

function whichSync(name: string): boolean {
  return (process.env.PATH ?? "").split(":").some((dir) => dir && existsSync(join(dir, name)));
}

/** Starts munged, slurmctld and slurmd on fresh ports; resolves once the node takes jobs. */
export async function startSlurm(opts: SlurmOptions = {}): Promise<SlurmCluster> {
  const dir = tempDir("relm-slurm-");
  const root = dir.path;
  const node = hostname().split(".")[0]!;
  const partition = "debug";
  const munge = join(root, "munge");
  for (const d of [munge, join(root, "state"), join(root, "spool"), join(root, "log")]) {
    mkdirSync(d, { recursive: true, mode: 0o700 });
  }
  const key = join(munge, "munge.key");
  writeFileSync(key, randomBytes(1024), { mode: 0o400 });
  const socket = join(munge, "munge.socket.2");
  const [ctldPort, slurmdPort] = [await closedPort(), await closedPort()];
  const conf = join(root, "slurm.conf");
  writeFileSync(
    conf,
    slurmConf({
      root,
      node,
      partition,
      socket,
      ctldPort,
      slurmdPort,
      cpus: opts.cpus ?? 2,
      oversubscribe: opts.oversubscribe ?? 32,
    }),
  );
  // A marker in the daemons' environment: slurmstepd inherits slurmd's, so stop() can find (and end)
  // the step daemons of this cluster and no other.
  const marker = `RELM_TEST_SLURM=${root}`;
  const env: NodeJS.ProcessEnv = { ...process.env, SLURM_CONF: conf };
  const daemonEnv = { ...env, RELM_TEST_SLURM: root };
  const daemons: ChildProcess[] = [];
  const stopDaemons = async () => {
    for (const d of daemons.reverse()) await stopProcess(d);
    await stopPid(join(munge, "munged.pid"));
  };

  const run = async (command: string, args: string[]): Promise<string> => {
    const { stdout } = await exec(command, args, { env, timeout: 30_000, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  };

  try {
    // munged forks itself into the background and writes its pid file. Its stdio is not piped: the
    // forked daemon would hold the pipe open and execFile would wait for it forever.
    await daemonized(
      "munged",
      [
        "--force",
        `--key-file=${key}`,
        `--socket=${socket}`,
        `--pid-file=${join(munge, "munged.pid")}`,
        `--log-file=${join(munge, "munged.log")}`,
        `--seed-file=${join(munge, "munged.seed")}`,
      ],
      daemonEnv,
    );
    await until(() => (existsSync(socket) ? true : undefined), 10_000);
    daemons.push(daemon(root, "slurmctld", ["-D", "-i", "-f", conf], daemonEnv));
    await until(
      () =>
        run("scontrol", ["ping"]).then(
          (out) => (/is UP/.test(out) ? true : undefined),
          () => undefined,
        ),
      30_000,
    );
    daemons.push(daemon(root, "slurmd", ["-D", "-f", conf, "-N", node], daemonEnv));
    const ready = await poll(async () => {
      const state = await run("sinfo", ["-h", "-N", "-o", "%T"]).catch(() => "");
      if (/^(idle|mixed|allocated)/.test(state.trim())) return true;
      if (/^(down|drain)/.test(state.trim())) {
        await run("scontrol", ["update", `nodename=${node}`, "state=resume"]).catch(() => "");
      }
      return undefined;
    }, 30_000);
    if (!ready) throw new Error(`the Slurm node never became idle; logs in ${root}/log`);
  } catch (e) {
    await stopDaemons();
    dir.cleanup();
    throw e;
  }

  let stopped = false;
  return {
    root,
    conf,
    node,
    partition,
    env,
    run,
    async steps() {
      const out = await run("squeue", ["--steps", "-h", "-o", "%i %j"]);
      return out
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const [step, name] = line.trim().split(/\s+/);
          return { step: step!, name: name ?? "" };
        });
    },
    completedJobs() {
      const log = join(root, "log", "jobcomp.log");
      return existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await run("scancel", ["--user=root"]).catch(() => "");
      // Steps end once slurmd has signalled their tasks; wait for this cluster's slurmstepd to go.
      await poll(() => (markedProcesses(marker, "slurmstepd").length === 0 ? true : undefined), 15_000);
      await stopDaemons();
      for (const pid of markedProcesses(marker)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      dir.cleanup();
    },
  };
}

function slurmConf(c: {
  root: string;
  node: string;
  partition: string;
  socket: string;
  ctldPort: number;
  slurmdPort: number;
  cpus: number;
  oversubscribe: number;
}): string {
  return `ClusterName=relmtest
SlurmctldHost=${c.node}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${c.ctldPort}
SlurmdPort=${c.slurmdPort}
AuthType=auth/munge
AuthInfo=socket=${c.socket}
CredType=cred/munge
StateSaveLocation=${c.root}/state
SlurmdSpoolDir=${c.root}/spool
SlurmctldPidFile=${c.root}/slurmctld.pid
SlurmdPidFile=${c.root}/slurmd.pid
SlurmctldLogFile=${c.root}/log/slurmctld.log
SlurmdLogFile=${c.root}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=${c.root}/log/jobcomp.log
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_interval=1,bf_interval=1
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
InactiveLimit=0
KillWait=2
MinJobAge=30
MessageTimeout=10
SlurmdTimeout=300
SlurmctldTimeout=120
NodeName=${c.node} NodeAddr=127.0.0.1 CPUs=${c.cpus} RealMemory=20000 State=UNKNOWN
PartitionName=${c.partition} Nodes=${c.node} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:${c.oversubscribe}
`;
}

/** Runs a daemon that forks itself; resolves once the foreground process has exited 0. */
function daemonized(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`)),
    );
  });
}

function daemon(root: string, name: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(name, args, {
    env,
    detached: true, // own session: a test runner's Ctrl-C does not reach it half-way
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr?.on("data", (d) => {
    err = (err + d).slice(-4000);
  });
  child.once("exit", (code) => {
    if (code) writeFileSync(join(root, "log", `${name}.exit`), `code ${code}\n${err}`);
  });
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const gone = await Promise.race([exited.then(() => true), sleepFor(10_000).then(() => false)]);
  if (!gone) {
    child.kill("SIGKILL");
    await exited;
  }
}

async function stopPid(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  if (!Number.isSafeInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  const gone = await poll(() => (alive(pid) ? undefined : true), 10_000);
  if (!gone) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function sleepFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Pids whose environment holds `marker` (this cluster's daemons and step daemons), by command name. */
export function markedProcesses(marker: string, command?: string): number[] {
  const pids: number[] = [];
  const needle = `\0${marker}\0`;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (command && !readFileSync(`/proc/${entry}/cmdline`, "utf8").startsWith(command)) continue;
      if (`\0${readFileSync(`/proc/${entry}/environ`, "utf8")}`.includes(needle)) pids.push(Number(entry));
    } catch {
      // ended while we looked
    }
  }
  return pids;
}
