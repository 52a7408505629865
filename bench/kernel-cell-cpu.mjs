// Where a cell `x = 1`'s round trip goes, in CPU per part (issue 24, goal 3): a kernel from each tree's
// dist/, blocks of 500 cells alternating between them; per cell the wall time, the host's CPU (this
// process) and the kernel's CPU per thread (/proc/PID/task/*/stat: the main thread runs the cell and
// writes the result, relm-protocol reads the host's messages). CPU is counted in clock ticks (10 ms), so
// blocks are long and the figures are means over all of them.
//   node bench/kernel-cell-cpu.mjs BASE_TREE NOW_TREE ["code"]
import { readdirSync, readFileSync } from "node:fs";

const [a, b] = process.argv.slice(2);
if (!a || !b) {
  console.log("usage: node bench/kernel-cell-cpu.mjs BASE_TREE NOW_TREE [code] (two built checkouts; Linux)");
  process.exit(0);
}
const code = process.argv[4] ?? "x = 1";
const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU ms per thread name of process `pid` (utime + stime). */
function threads(pid) {
  const out = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let name;
    let stat;
    try {
      name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // a thread that ended meanwhile
    }
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const key = tid === String(pid) ? "main" : name;
    out[key] = (out[key] ?? 0) + (Number(f[11]) + Number(f[12])) * TICK_MS;
  }
  return out;
}

const kernels = [];
for (const tree of [a, b]) {
  const { startKernel } = await import(`${tree}/dist/kernel/index.js`);
  kernels.push(await startKernel({ cwd: "/tmp" }));
}
for (const k of kernels) for (let i = 0; i < 300; i++) await k.execute(code);
const sums = kernels.map(() => ({ cells: 0, wall: 0, host: 0, kernel: {}, times: [] }));
for (let round = 0; round < 16; round++) {
  for (const j of round % 2 ? [1, 0] : [0, 1]) {
    const k = kernels[j];
    const s = sums[j];
    const before = threads(k.pid);
    const cpu = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < 500; i++) {
      const t1 = performance.now();
      await k.execute(code);
      s.times.push(performance.now() - t1);
    }
    s.wall += performance.now() - t;
    const used = process.cpuUsage(cpu);
    s.host += (used.user + used.system) / 1000;
    const after = threads(k.pid);
    for (const [name, ms] of Object.entries(after))
      s.kernel[name] = (s.kernel[name] ?? 0) + ms - (before[name] ?? 0);
    s.cells += 500;
  }
}
const p50 = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const us = (ms, n) => ((ms * 1000) / n).toFixed(1);
for (const [j, s] of sums.entries()) {
  const parts = Object.entries(s.kernel)
    .filter(([, ms]) => ms > 0)
    .map(([name, ms]) => `${name} ${us(ms, s.cells)}`)
    .join(", ");
  const kernelTotal = Object.values(s.kernel).reduce((x, y) => x + y, 0);
  console.log(
    `${j ? "now " : "base"} per cell (µs): wall p50 ${us(p50(s.times), 1)} mean ${us(s.wall, s.cells)}, host CPU ${us(s.host, s.cells)}, kernel CPU ${us(kernelTotal, s.cells)} (${parts})`,
  );
}
for (const k of kernels) await k.shutdown();
