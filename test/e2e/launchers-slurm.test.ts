// Scale-out on a single-node Slurm cluster started by this file (test/support/slurm.ts): rlm.map with
// kernel="slurm://..." runs each child's kernel as a Slurm job step while the children's agent loops
// stay in relm; results come back in order; scancel of one child's step fails that child only, with
// Slurm's reason, and the map's other children finish.
//
// Accounting is off in the test cluster (no slurmdbd, so sacct shows nothing): the steps are seen with
// `squeue --steps` while they run, and the finished jobs in slurmctld's job completion log
// (jobcomp/filetxt).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRelm } from "../support/cli.js";
import { onlyJournal } from "../support/journal.js";
import { byTask, echoLastCell } from "../support/router.js";
import { useRigs } from "../support/scripted.js";
import { type SlurmCluster, slurmAvailable, startSlurm } from "../support/slurm.js";
import { until } from "../support/wait.js";

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
  it("runs 16 children's kernels as Slurm steps and returns their results in order", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: fan out": [
          {
            code: `import sys\nr = rlm.map("CHILD: where am I", list(range(16)), ${SLURM}, max_parallel=64)\nprint(r)`,
          },
          echoLastCell,
        ],
        "CHILD: where am I": [
          {
            code: "import os\nsubmit((item * item, os.environ['SLURM_JOB_ID'], os.environ['SLURM_STEP_ID']))",
          },
        ],
      }),
    });
    const env = { ...rig.env, SLURM_CONF: cluster.conf };
    let most = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const steps = await cluster.steps().catch(() => []);
        most = Math.max(most, steps.filter((s) => s.name === "relm-kernel").length);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const result = await runRelm(["run", "ROOT: fan out"], { env, cwd: rig.cwd });
    watching = false;
    await watcher;
    expect(result.code, result.stderr).toBe(0);
    const tuples = [...result.stdout.matchAll(/\((\d+), '(\d+)', '(\d+)'\)/g)];
    expect(tuples.map((m) => Number(m[1]))).toEqual([...Array(16).keys()].map((i) => i * i));
    expect(new Set(tuples.map((m) => m[2])).size).toBe(16); // one job (and step 0 of it) per kernel
    expect(tuples.every((m) => m[3] === "0")).toBe(true);
    expect(most).toBeGreaterThan(0); // seen running by squeue --steps
    const finished = await until(() => {
      const jobs = cluster.completedJobs().filter((l) => l.includes("Name=relm-kernel"));
      return jobs.length >= 16 ? jobs : undefined;
    }, 30_000);
    for (const m of tuples) expect(finished.some((l) => l.includes(`JobId=${m[2]} `))).toBe(true);
    expect(onlyJournal(rig.home).lines.filter((l) => l.type === "child_finished")).toHaveLength(16);
  });

  it("scancel of one child's step fails that child with Slurm's reason; the others finish", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: fan out, one cancelled": [
          {
            code:
              `import sys\nr = rlm.map("CHILD: wait if 2", list(range(3)), ${SLURM}, return_exceptions=True)\n` +
              "print([x if isinstance(x, int) else f'failed: {x}' for x in r])",
          },
          echoLastCell,
        ],
        "CHILD: wait if 2": [
          {
            code:
              "import os, time\nif item == 2:\n    open('job-of-2', 'w').write(os.environ['SLURM_JOB_ID'])\n" +
              "    time.sleep(300)\nsubmit(item * 10)",
          },
        ],
      }),
    });
    const env = { ...rig.env, SLURM_CONF: cluster.conf };
    const run = runRelm(["run", "ROOT: fan out, one cancelled"], { env, cwd: rig.cwd });
    const marker = join(rig.cwd, "job-of-2");
    const job = await until(
      () => (existsSync(marker) ? readFileSync(marker, "utf8").trim() || undefined : undefined),
      60_000,
    );
    await cluster.run("scancel", [`${job}.0`]);
    const result = await run;
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout.trim();
    expect(out).toMatch(/^\[0, 10, 'failed: .*'\]$/);
    expect(out).toContain(`Slurm step ${job}.0 on ${cluster.node} was cancelled (scancel)`);
  });
});
