// Kernels forked from a warm template vs spawned: start latency and memory. Linux (reads /proc).
// Run after `npx tsc -p tsconfig.build.json`:
//   node bench/kernel-fork.mjs [forks=30] [idle=10]
import { readFileSync } from "node:fs";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { findPython, startKernel, startKernelTemplate } from "../dist/kernel/index.js";
import { median, quantile, table } from "./lib.mjs";

const FORKS = Number(process.argv[2] ?? 30);
const IDLE = Number(process.argv[3] ?? 10);
const TEMPLATE_STARTS = 3;
const SPAWNED_IDLE = 3;
const cwd = os.tmpdir();

/** Pss and Rss of one process, in MB (smaps_rollup: shared pages count 1/n to each of n sharers). */
function memory(pid) {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  return {
    pss: kb("Pss") / 1024,
    rss: kb("Rss") / 1024,
    uss: (kb("Private_Clean") + kb("Private_Dirty")) / 1024,
  };
}

/** The kernel's keeper (python/relm/keeper.py; Linux), its parent, if it has one. */
function keeperOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  const comm = readFileSync(`/proc/${parent}/comm`, "utf8").trim();
  return comm === "relm-keeper" ? parent : undefined;
}

/** A kernel's memory together with its keeper's: what one more kernel costs. */
function kernelMemory(pid) {
  const own = memory(pid);
  const keeper = keeperOf(pid);
  if (keeper === undefined) return own;
  const k = memory(keeper);
  return { pss: own.pss + k.pss, rss: own.rss + k.rss, uss: own.uss + k.uss };
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const ms = (v) => `${v.toFixed(1)} ms`;
const mb = (v) => `${v.toFixed(1)} MB`;

/** From the request to a kernel that has answered its first cell. */
async function firstCell(options) {
  const t0 = performance.now();
  const kernel = await startKernel({ cwd, ...options });
  const ready = performance.now() - t0;
  const r = await kernel.execute("x = 1");
  if (r.status !== "ok") throw new Error(`first cell failed: ${JSON.stringify(r)}`);
  return { kernel, ready, first: performance.now() - t0 };
}

/** `gapMs` between kernels: 0 is a burst; with a gap the template has time to prepare its spare. */
async function latencies(options, n, check, gapMs = 0) {
  const ready = [];
  const first = [];
  for (let i = 0; i < n; i++) {
    if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
    const k = await firstCell({ ...options, onLifecycle: check });
    ready.push(k.ready);
    first.push(k.first);
    await k.kernel.shutdown();
  }
  return { ready, first };
}

async function idleMemory(options, n) {
  const kernels = [];
  for (let i = 0; i < n; i++) kernels.push((await firstCell(options)).kernel);
  await new Promise((r) => setTimeout(r, 1000)); // let the runners' start-up settle
  const figures = kernels.map((k) => kernelMemory(k.pid));
  await Promise.all(kernels.map((k) => k.shutdown()));
  return {
    pss: mean(figures.map((f) => f.pss)),
    rss: mean(figures.map((f) => f.rss)),
    uss: mean(figures.map((f) => f.uss)),
  };
}

const python = await findPython(process.env);

const templateStart = [];
for (let i = 0; i < TEMPLATE_STARTS; i++) {
  const t0 = performance.now();
  const t = await startKernelTemplate({ python });
  templateStart.push(performance.now() - t0);
  await t.close();
}

const template = await startKernelTemplate({ python });
const mustFork = (e) => {
  if (e.type === "started" && e.forkedFrom === undefined) throw new Error(`not forked: ${e.fallback}`);
};
await latencies({ template }, 3, mustFork); // warm-up: first connections, JIT of the host side
const forked = await latencies({ template }, FORKS, mustFork);
const sporadic = await latencies({ template }, FORKS, mustFork, 200);
const spawned = await latencies({ python }, FORKS, () => {});
const forkedMemory = await idleMemory({ template }, IDLE);
const templateMemory = memory(template.pid);
const spawnedMemory = await idleMemory({ python }, SPAWNED_IDLE);
await template.close();

console.log(
  `python ${python.path} ${python.version}, IPython ${python.ipython ?? "none"}; ${os.cpus().length} CPUs`,
);
console.log(`template start (to ready): ${ms(median(templateStart))} median of ${TEMPLATE_STARTS}`);
console.log(`template itself: Pss ${mb(templateMemory.pss)}, Rss ${mb(templateMemory.rss)}`);
const latencyRow = (path, l) => ({
  path,
  "ready p50": ms(median(l.ready)),
  "first cell p50": ms(median(l.first)),
  "first cell p90": ms(quantile(l.first, 0.9)),
  n: l.first.length,
});
console.log("\nFrom startKernel() to a kernel that has answered its first cell:");
table([
  latencyRow("fork, back to back", forked),
  latencyRow("fork, 200 ms apart", sporadic),
  latencyRow("spawn", spawned),
]);
const memoryRow = (path, m, alive) => ({
  path,
  "Pss / kernel": mb(m.pss),
  "Rss / kernel": mb(m.rss),
  "private / kernel": mb(m.uss),
  "kernels alive": alive,
});
console.log(
  "\nIdle kernels (runner process and its keeper, if any; Pss splits shared pages among their sharers):",
);
table([memoryRow("fork", forkedMemory, IDLE), memoryRow("spawn", spawnedMemory, SPAWNED_IDLE)]);
