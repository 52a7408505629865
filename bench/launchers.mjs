// Kernel start and first cell through each launcher (src/kernel/launchers/), beside local spawn and
// fork from the warm template. Real software only: podman for container://, a single-node Slurm
// cluster started here (test/support/slurm.ts) for slurm://. A launcher whose software is missing is
// listed as skipped. Linux, as root for Slurm.
//   npm run build --silent && node bench/launchers.mjs [runs=5]   (RELM_BENCH_ONLY=local,ssh: some only)
// To add a launcher: one entry in LAUNCHERS (its URI; `needs` names what must be installed).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { findPython, startKernel, startKernelTemplate } from "../dist/kernel/index.js";
import { parseKernelUri } from "../dist/kernel/launchers/index.js";
import { releaseSlurmAllocations } from "../dist/kernel/launchers/slurm.js";
import { median, quantile, startTestSlurm, startTestSshd, table } from "./lib.mjs";

const RUNS = Number(process.argv[2] ?? 5);
const python = await findPython(process.env);
// Remote launchers name the interpreter as a cluster user would (python3 on PATH may be a slow shim).
const PY = encodeURIComponent(python.path);

export const LAUNCHERS = [
  { name: "local, spawned", uri: "local" },
  { name: "local, forked from the warm template", uri: "local", fork: true },
  // cmd: always runs "python3" from PATH: the PATH names the same interpreter as the others.
  {
    name: "cmd:env (remote bootstrap, this machine)",
    uri: `cmd:env PATH=${dirname(python.path)}:/usr/bin:/bin`,
  },
  // A private sshd on 127.0.0.1: a new ssh connection per kernel (key exchange included), the remote
  // login's PATH (its python3); `control=auto` reuses one connection (ControlMaster).
  { name: "ssh:// (sshd on 127.0.0.1, a connection per kernel)", uri: "ssh://SSHD/tmp", needs: "sshd" },
  { name: "ssh://?control=auto (one shared connection)", uri: "ssh://SSHD/tmp?control=auto", needs: "sshd" },
  { name: "container:// (podman --rootfs /:O)", uri: "container://?network=none", needs: "podman" },
  { name: "slurm:// (srun: one job per kernel)", uri: `slurm://?python=${PY}`, needs: "slurm" },
  {
    name: "slurm://?alloc=session (srun step in a held allocation)",
    uri: `slurm://?alloc=session&python=${PY}`,
    needs: "slurm",
  },
];

function installed(cmd) {
  try {
    execFileSync(cmd, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

// RELM_BENCH_ONLY=local,cmd,ssh measures only the launchers whose URI starts with one of those.
const only = process.env.RELM_BENCH_ONLY?.split(",").filter(Boolean);
if (only)
  LAUNCHERS.splice(0, LAUNCHERS.length, ...LAUNCHERS.filter((l) => only.some((p) => l.uri.startsWith(p))));
const cwd = mkdtempSync(join(os.tmpdir(), "relm-bench-launchers-"));
const slurm = LAUNCHERS.some((l) => l.needs === "slurm") ? await startTestSlurm() : undefined;
const sshd = LAUNCHERS.some((l) => l.needs === "sshd") ? await startTestSshd() : undefined;
const env = { ...(slurm ? slurm.env : process.env), ...(sshd ? { RELM_SSH_CONFIG: sshd.config } : {}) };
const template = await startKernelTemplate({ python, env });
const rows = [];
try {
  for (const l of LAUNCHERS) {
    const missing = { podman: !installed("podman"), slurm: !slurm, sshd: !sshd };
    if (l.needs && missing[l.needs]) {
      rows.push({
        launcher: l.name,
        "ready p50 ms": "skipped",
        "first cell p50 ms": "",
        "first cell max ms": "",
      });
      continue;
    }
    const launcher = parseKernelUri(sshd ? l.uri.replace("SSHD", sshd.host) : l.uri);
    const ready = [];
    const first = [];
    // One warm-up (podman's storage, Slurm's first job, the template's spare), then RUNS measured.
    for (let i = 0; i <= RUNS; i++) {
      const t0 = performance.now();
      const kernel = await startKernel({ cwd, env, python, launcher, ...(l.fork ? { template } : {}) });
      const t1 = performance.now();
      const r = await kernel.execute("x = 1");
      const t2 = performance.now();
      if (r.status !== "ok")
        throw new Error(`${l.name}: first cell ${r.status}: ${r.output} ${r.note ?? ""}`);
      await kernel.shutdown();
      if (i === 0) continue;
      ready.push(t1 - t0);
      first.push(t2 - t0);
    }
    rows.push({
      launcher: l.name,
      "ready p50 ms": median(ready).toFixed(0),
      "first cell p50 ms": median(first).toFixed(0),
      "first cell max ms": quantile(first, 1).toFixed(0),
    });
  }
} finally {
  releaseSlurmAllocations();
  await template.close();
  await slurm?.stop();
  await sshd?.stop();
  rmSync(cwd, { recursive: true, force: true });
}
console.log(
  `# kernel start and first cell (x = 1), ${RUNS} runs each after one warm-up; load average ${os.loadavg()[0].toFixed(1)}`,
);
table(rows);
