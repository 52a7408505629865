// Kernel start time and cell round trip. Run after `npm run build`:
//   node bench/kernel-roundtrip.mjs [cells=1000]
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { findPython, startKernel } from "../dist/kernel/index.js";

const CELLS = Number(process.argv[2] ?? 1000);
const STARTS = 5;
const WARMUP = 100;

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function row(name, values, unit = "ms") {
  const s = [...values].sort((a, b) => a - b);
  const f = (v) => v.toFixed(3).padStart(9);
  return `${name.padEnd(30)}${f(quantile(s, 0.5))}${f(quantile(s, 0.99))}${f(s[0])}${f(s.at(-1))}  ${unit}  (n=${s.length})`;
}

const cacheDir = mkdtempSync(path.join(os.tmpdir(), "relm-bench-"));
let t = performance.now();
const python = await findPython(process.env, cacheDir);
const findMs = performance.now() - t;
t = performance.now();
await findPython(process.env, cacheDir);
const cachedFindMs = performance.now() - t;

const startMs = [];
const firstCellMs = [];
for (let i = 0; i < STARTS; i++) {
  t = performance.now();
  const k = await startKernel({ cwd: process.cwd(), python });
  startMs.push(performance.now() - t);
  await k.execute("x = 1");
  firstCellMs.push(performance.now() - t);
  await k.shutdown();
}

const kernel = await startKernel({ cwd: process.cwd(), python });
for (let i = 0; i < WARMUP; i++) await kernel.execute("x = 1");
const roundTrip = [];
for (let i = 0; i < CELLS; i++) {
  t = performance.now();
  const r = await kernel.execute("x = 1");
  roundTrip.push(performance.now() - t);
  if (r.status !== "ok") throw new Error(`cell failed: ${JSON.stringify(r)}`);
}
const printCell = [];
for (let i = 0; i < 200; i++) {
  t = performance.now();
  await kernel.execute("print(x)");
  printCell.push(performance.now() - t);
}
await kernel.shutdown();
rmSync(cacheDir, { recursive: true, force: true });

console.log(
  `python ${python.path} ${python.version}, IPython ${kernel.python.ipython ?? "none (plain exec)"}`,
);
console.log(`findPython: ${findMs.toFixed(1)} ms probing, ${cachedFindMs.toFixed(2)} ms from cache`);
console.log(
  `${"".padEnd(30)}${"p50".padStart(9)}${"p99".padStart(9)}${"min".padStart(9)}${"max".padStart(9)}`,
);
console.log(row("kernel start (to ready)", startMs));
console.log(row("kernel start + first cell", firstCellMs));
console.log(row("cell round trip `x = 1`", roundTrip));
console.log(row("cell round trip `print(x)`", printCell));
