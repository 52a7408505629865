// Kernels as Slurm job steps (slurm://) on a single-node cluster the test starts itself
// (test/support/slurm.ts): cells run on the "cluster", the step is visible to squeue while the kernel
// lives, a cancelled step is named as such in the crash note, and alloc=session runs kernels as steps
// of one held allocation.
import { spawn } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseKernelUri } from "../../src/kernel/launchers/index.js";
import { releaseSlurmAllocations } from "../../src/kernel/launchers/slurm.js";
import { RunnerProcess } from "../../src/kernel/runner-process.js";
import { ROOT } from "../support/cli.js";
import { type SlurmCluster, slurmAvailable, startSlurm } from "../support/slurm.js";
import { until } from "../support/wait.js";
import { tempDir, testPython, useKernels } from "./helpers.js";

let cluster: SlurmCluster;
// The interpreter named in the URI, as a cluster user would (python3 on PATH here is a slow pyenv shim).
let python = "";
beforeAll(async () => {
  python = encodeURIComponent((await testPython()).path);
  if (slurmAvailable()) cluster = await startSlurm();
});
afterAll(async () => {
  releaseSlurmAllocations();
  await cluster?.stop();
});
const start = useKernels(); // registered after the cluster's hooks: its kernels end first

/** Drains the node (jobs then wait in the queue) or resumes it. */
const drain = (state: "drain" | "resume") =>
  cluster.run("scontrol", ["update", `nodename=${cluster.node}`, `state=${state}`, "reason=relm-test"]);
/** The ids of the jobs waiting in the queue, "" when none. */
const pendingJobs = async () => (await cluster.run("squeue", ["-h", "-t", "PENDING", "-o", "%i"])).trim();

describe.runIf(slurmAvailable())("kernels through slurm://", () => {
  it("runs a kernel as a Slurm step, and says in the crash note what Slurm said of a cancelled step", async () => {
    const work = await tempDir();
    const kernel = await start({
      cwd: work,
      env: cluster.env,
      launcher: parseKernelUri(`slurm://debug?cpus=1&python=${python}`),
    });
    const r = await kernel.execute(
      "import os\nprint(os.environ['SLURM_JOB_ID'], os.environ['SLURM_STEP_ID'], os.getcwd())",
    );
    expect(r.status).toBe("ok");
    const [job, step, cwd] = r.output.trim().split(" ");
    expect(step).toBe("0");
    expect(cwd).toBe(work);
    const steps = await cluster.steps();
    expect(steps).toContainEqual({ step: `${job}.0`, name: "relm-kernel" });
    const cell = kernel.execute("import time\nprint('waiting', flush=True)\ntime.sleep(60)");
    await until(async () => (await cluster.steps()).length > 0 || undefined); // the cell is running
    await cluster.run("scancel", [`${job}.0`]);
    const crashed = await cell;
    expect(crashed.status).toBe("crashed");
    // Slurm names the cancel when slurmstepd's line reaches srun before it exits; on a busy machine srun
    // may say only that the task was killed (Slurm's own race), and the note then says that. The whole
    // note in the failure message: vitest cuts the value short, and the case at load 14 was not seen whole.
    expect(crashed.note, `the whole note: ${crashed.note}`).toMatch(
      new RegExp(
        `Slurm step ${job}\\.0 on ${cluster.node} was cancelled|the Slurm step's task 0 on ${cluster.node} was killed`,
      ),
    );
    // Restarted as a new job: the kernel goes on.
    const again = await kernel.execute("import os\nprint(os.environ['SLURM_JOB_ID'])");
    expect(again.output.trim()).not.toBe(job);
  }, 120_000); // real daemons on 2 shared cores: generous, never a race

  it("alloc=session: kernels are steps of one allocation held for the session", async () => {
    const launcher = parseKernelUri(`slurm://?alloc=session&time=10&python=${python}`);
    const [a, b] = await Promise.all([
      start({ env: cluster.env, launcher }),
      start({ env: cluster.env, launcher }),
    ]);
    const ids = await Promise.all(
      [a, b].map(async (k) =>
        (
          await k.execute("import os\nprint(os.environ['SLURM_JOB_ID'], os.environ['SLURM_STEP_ID'])")
        ).output.trim(),
      ),
    );
    const [jobA, stepA] = ids[0]!.split(" ");
    const [jobB, stepB] = ids[1]!.split(" ");
    expect(jobA).toBe(jobB);
    expect(new Set([stepA, stepB])).toEqual(new Set(["0", "1"]));
    const steps = (await cluster.steps()).filter((s) => s.step.startsWith(`${jobA}.`));
    expect(steps.map((s) => s.step).sort()).toEqual([`${jobA}.0`, `${jobA}.1`]);
    // relm run inside that allocation (SLURM_JOB_ID set, as under sbatch): plain slurm:// makes a step of it.
    const inside = await start({
      env: { ...cluster.env, SLURM_JOB_ID: jobA },
      launcher: parseKernelUri(`slurm://?python=${python}`),
    });
    const where = await inside.execute(
      "import os\nprint(os.environ['SLURM_JOB_ID'], os.environ['SLURM_STEP_ID'])",
    );
    expect(where.output.trim()).toBe(`${jobA} 2`);
  }, 120_000); // real daemons on 2 shared cores: generous, never a race

  it("a job waiting in the queue longer than the ready timeout still starts once Slurm grants it", async () => {
    // A cluster's queue can hold a job for minutes: that is Slurm's wait, not a kernel that failed to
    // start. The node is drained so the job queues; the ready timeout is short so the wait outlasts it.
    // It counts from the spawn, before srun has said "queued": 2 s was too short for that at load 24.
    const readyTimeoutMs = 5_000;
    await drain("drain");
    let runner: RunnerProcess | undefined;
    try {
      const starting = RunnerProcess.start({
        python: "",
        cwd: await tempDir(),
        env: cluster.env,
        firstCount: 1,
        readyTimeoutMs,
        launcher: parseKernelUri(`slurm://debug?python=${python}`),
        onStream: () => {},
        onRequest: () => {},
      }).then(
        (r) => (runner = r),
        (e: Error) => e,
      );
      await until(async () => (await pendingJobs()) || undefined, 30_000);
      // Held in the queue well past the ready timeout (a duration is the point here, not a race): the
      // start must still be waiting, not given up.
      const early = await Promise.race([starting, delay(2 * readyTimeoutMs).then(() => "still waiting")]);
      expect(early).toBe("still waiting");
      await drain("resume");
      const started = await starting;
      expect(started).toBeInstanceOf(RunnerProcess);
      expect(runner!.ready.python).toMatch(/^3\./);
    } finally {
      await drain("resume").catch(() => "");
      runner?.kill();
      await runner?.exited;
    }
  }, 120_000); // real daemons on 2 shared cores: generous, never a race

  it("a start cancelled while its job is queued withdraws the job from the queue", async () => {
    // srun was killed with SIGKILL, which cannot withdraw its request: the job stayed in the queue
    // (counting against the user's job limits) until Slurm granted it, only to fail then.
    await drain("drain");
    try {
      const abort = new AbortController();
      const said: string[] = [];
      const starting = start({
        env: cluster.env,
        launcher: parseKernelUri(`slurm://debug?python=${python}`),
        startSignal: abort.signal,
        onLifecycle: (event) => {
          if (event.type === "queued") said.push(event.said);
        },
      }).catch((e: Error) => e);
      await until(async () => (await pendingJobs()) || undefined, 30_000); // srun waits in the queue
      // The wait is said (a front end shows it), in srun's own words.
      await until(() => (said.length > 0 ? true : undefined), 30_000);
      expect(said[0]).toMatch(/^srun: job \d+ queued and waiting for resources$/);
      abort.abort();
      expect(String(await starting)).toMatch(/the kernel's start was cancelled/);
      await until(async () => ((await pendingJobs()) === "" ? true : undefined), 30_000);
    } finally {
      await drain("resume").catch(() => "");
    }
  }, 120_000); // real daemons on 2 shared cores: generous, never a race

  it("alloc=session: a start cancelled while the allocation is queued ends, and withdraws the request", async () => {
    // Ctrl-C while salloc waited in the queue used to leave the start (and relm) waiting for it.
    await drain("drain");
    try {
      const abort = new AbortController();
      let outcome: unknown;
      const starting = start({
        env: cluster.env,
        // Not the URI of the test above, whose allocation this process still holds.
        launcher: parseKernelUri(`slurm://?alloc=session&time=9&python=${python}`),
        startSignal: abort.signal,
      }).then(
        () => {
          outcome = "started";
        },
        (e: Error) => {
          outcome = e;
        },
      );
      await until(async () => (await pendingJobs()) || undefined, 30_000); // salloc waits in the queue
      abort.abort();
      await until(() => outcome, 30_000);
      expect(String(outcome)).toMatch(/the kernel's start was cancelled/);
      await starting;
      // Nobody waits for the allocation any more: its request is withdrawn, not left in the queue.
      await until(async () => ((await pendingJobs()) === "" ? true : undefined), 30_000);
    } finally {
      await drain("resume").catch(() => "");
    }
  }, 120_000); // real daemons on 2 shared cores: generous, never a race

  it("alloc=session: the allocation ends with the process that holds it, even after SIGKILL", async () => {
    const script =
      `import { parseKernelUri } from ${JSON.stringify(`${ROOT}dist/kernel/launchers/index.js`)};\n` +
      `const l = parseKernelUri("slurm://?alloc=session");\n` +
      "await l.prepare({ cwd: process.cwd(), inner: [], env: process.env });\n" +
      'console.log("granted"); setInterval(() => {}, 1000);';
    const holder = spawn(process.execPath, ["--input-type=module", "-e", script], {
      env: cluster.env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    holder.stdout.on("data", (d) => {
      out += d;
    });
    await until(() => (out.includes("granted") ? true : undefined), 60_000);
    const held = async () =>
      (await cluster.run("squeue", ["-h", "-o", "%i %j %T"]))
        .split("\n")
        .filter((l) => l.includes("RUNNING"));
    const before = (await held()).length;
    expect(before).toBeGreaterThan(0);
    holder.kill("SIGKILL");
    await until(async () => ((await held()).length < before ? true : undefined), 30_000);
  }, 120_000); // real daemons on 2 shared cores: generous, never a race

  it("a host killed with SIGKILL leaves no step behind: the kernel's stdin closes and it exits", async () => {
    const script =
      `import { startKernel } from ${JSON.stringify(`${ROOT}dist/kernel/index.js`)};\n` +
      `import { parseKernelUri } from ${JSON.stringify(`${ROOT}dist/kernel/launchers/index.js`)};\n` +
      `const k = await startKernel({ cwd: process.cwd(), launcher: parseKernelUri(${JSON.stringify(`slurm://?python=${python}`)}) });\n` +
      "const r = await k.execute(\"import os\\nprint(os.environ['SLURM_JOB_ID'])\");\n" +
      "console.log('job', r.output.trim()); setInterval(() => {}, 1000);";
    const host = spawn(process.execPath, ["--input-type=module", "-e", script], {
      env: cluster.env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    host.stdout.on("data", (d) => {
      out += d;
    });
    const job = await until(() => /job (\d+)/.exec(out)?.[1], 60_000);
    expect((await cluster.steps()).map((s) => s.step)).toContain(`${job}.0`);
    host.kill("SIGKILL");
    await until(
      async () => ((await cluster.steps()).some((s) => s.step.startsWith(`${job}.`)) ? undefined : true),
      30_000,
    );
  }, 120_000); // real daemons on 2 shared cores: generous, never a race
});
