// Scale-out on a single-node Slurm cluster started by this file (test/support/slurm.ts): rlm.map with
// kernel="slurm://..." runs each child's kernel as a Slurm job step while the children's agent loops
// stay in relm; results come back in order; scancel of one child's step fails that child only, with
// Slurm's reason, and the map's other children finish.
//
// Accounting is off in the test cluster (no slurmdbd, so sacct shows nothing): the steps are seen with
// `squeue --steps` while they run, and the finished jobs in slurmctld's job completion log
// (jobcomp/filetxt).
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { RELM_BIN, runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { type SlurmCluster, slurmAvailable, startSlurm } from "../../support/slurm.js";
import { until } from "../../support/wait.js";

let cluster: SlurmCluster;
beforeAll(async () => {
  if (slurmAvailable()) cluster = await startSlurm();
});
afterAll(async () => {
  await cluster?.stop();
});
const startRig = useRigs();

// The interpreter is named in the URI (as on a cluster): the parent kernel's own, by sys.executable.
const SLURM = 'kernel=f"slurm://debug?cpus=1&python={sys.executable}"';

describe.runIf(slurmAvailable())("rlm.map with kernel=slurm://", () => {
  // One run shows both (a second would double the file's time): 16 children, in order; the step of
  // child 5 is cancelled while its cell runs, and only that child fails.
  it("runs 16 children's kernels as Slurm steps, results in order; scancel of one step fails only that child", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: fan out": [
          {
            code:
              `import sys\nr = rlm.map("CHILD: where am I", list(range(16)), ${SLURM}, max_parallel=64, return_exceptions=True)\n` +
              "print([x if isinstance(x, tuple) else f'failed: {x}' for x in r])",
          },
          echoLastCell,
        ],
        "CHILD: where am I": [
          {
            code:
              "import os, time\njob = os.environ['SLURM_JOB_ID']\nif item == 5:\n    open('job-of-5', 'w').write(job)\n" +
              "    time.sleep(300)\nsubmit((item * item, job, os.environ['SLURM_STEP_ID']))",
          },
        ],
      }),
    });
    const env = { ...rig.env, SLURM_CONF: cluster.conf };
    let most = 0;
    let watching = true;
    // Samples squeue every 100 ms while the run lasts (an observer's interval, not a wait for something).
    const watcher = (async () => {
      while (watching) {
        const steps = await cluster.steps().catch(() => []);
        most = Math.max(most, steps.filter((s) => s.name === "relm-kernel").length);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const run = runRelm(["run", "ROOT: fan out"], { env, cwd: rig.cwd });
    const marker = join(rig.cwd, "job-of-5");
    const cancelled = await until(
      () => (existsSync(marker) ? readFileSync(marker, "utf8").trim() || undefined : undefined),
      150_000,
    );
    await cluster.run("scancel", [`${cancelled}.0`]);
    const result = await run;
    watching = false;
    await watcher;
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout.trim();
    const tuples = [...out.matchAll(/\((\d+), '(\d+)', '(\d+)'\)/g)];
    const expected = [...Array(16).keys()].filter((i) => i !== 5).map((i) => i * i);
    expect(tuples.map((m) => Number(m[1]))).toEqual(expected);
    // In order, with the failed child in its place.
    expect(out).toMatch(/^\[\(0, .*\(16, [^)]*\), 'failed: [^']*', \(36, /);
    expect(out).toContain(`Slurm step ${cancelled}.0 on ${cluster.node} was cancelled (scancel)`);
    expect(out).not.toContain("was restarted"); // a failing child's kernel is not started again first
    const jobs = tuples.map((m) => m[2]!);
    expect(new Set([...jobs, cancelled]).size).toBe(16); // one job (and its step 0) per kernel
    expect(tuples.every((m) => m[3] === "0")).toBe(true);
    expect(most).toBeGreaterThan(0); // seen running by squeue --steps
    // Every kernel's job in slurmctld's completion log.
    await until(() => {
      const logged = cluster.completedJobs().filter((l) => l.includes("Name=relm-kernel"));
      return [...jobs, cancelled].every((id) => logged.some((l) => l.includes(`JobId=${id} `))) || undefined;
    }, 30_000);
    expect(onlyJournal(rig.home).lines.filter((l) => l.type === "child_finished")).toHaveLength(16);
  }, 180_000); // 35-60 s at load averages 20-50 on 2 cores: 16 Python starts share them with the host

  it("relm doctor asks the cluster for the partition (sinfo, nothing submitted) and names what is wrong", async () => {
    // It said "ok" for any slurm:// URI: a partition that does not exist, or no Slurm client at all.
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const env = { ...rig.env, SLURM_CONF: cluster.conf };
    const doctor = (uri: string, extra: NodeJS.ProcessEnv = {}) =>
      runRelm(["doctor", "--kernel", uri], { env: { ...env, ...extra }, cwd: rig.cwd });
    const good = await doctor(`slurm://${cluster.partition}`);
    expect(good.stdout).toMatch(/^ok +kernel +slurm:\/\/debug: python3 there not probed/m);
    const wrong = await doctor("slurm://nopart?cpus=1");
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(
      /^FAIL +kernel +slurm:\/\/nopart\?cpus=1: the cluster has no partition "nopart" \(sinfo lists: debug\)$/m,
    );
    const noClient = await doctor("slurm://", { PATH: "/nonexistent" });
    expect(noClient.stdout).toMatch(
      /^FAIL +kernel +slurm:\/\/: srun is not installed here \(not on PATH \/nonexistent\)$/m,
    );
  }, 120_000); // real daemons on 2 shared cores: generous, never a race

  it("a sub-agent's kernel waiting in the queue is said under its name, as the root's is", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: one child": [{ code: `import sys\nprint(rlm("CHILD: queued", ${SLURM}))` }, echoLastCell],
        "CHILD: queued": [{ code: "print('ran')" }, { text: "child ran" }],
      }),
    });
    const env = { ...rig.env, SLURM_CONF: cluster.conf };
    const drain = (state: "drain" | "resume") =>
      cluster.run("scontrol", ["update", `nodename=${cluster.node}`, `state=${state}`, "reason=relm-test"]);
    await drain("drain");
    try {
      const child = spawn(process.execPath, [RELM_BIN, "run", "ROOT: one child"], { env, cwd: rig.cwd });
      onTestFinished(() => {
        if (child.exitCode === null) child.kill();
      });
      let stderr = "";
      let stdout = "";
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      child.stdout.on("data", (d) => {
        stdout += d;
      });
      const closed = new Promise((r) => child.on("close", r));
      // The child's srun waits for the drained node: the line says so, under the child's name.
      await until(() => (/waits in the queue/.test(stderr) ? true : undefined), 60_000);
      expect(stderr).toMatch(
        /│ ⚠ the kernel waits in the queue: srun: job \d+ queued and waiting for resources/,
      );
      await drain("resume");
      expect(await closed).toBe(0);
      expect(stdout.trim()).toBe("child ran");
    } finally {
      await drain("resume").catch(() => "");
    }
  }, 120_000); // real daemons on 2 shared cores: generous, never a race
});
