// File checkpoints on a 10 000-file repository: the first snapshot, snapshots after a turn that touched
// 1 or 100 files, an unchanged one, a fingerprint, and a restore. Goal: under 200 ms per turn after the first.
// Run after `npm run build`: node bench/checkpoints.mjs [FILES]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { median, quantile, ROOT, table } from "./lib.mjs";

const { Checkpoints } = await import(join(ROOT, "dist/workspace/index.js"));

const FILES = Number(process.argv[2] ?? 10_000);
const RUNS = 7;
const base = mkdtempSync(join(tmpdir(), "relm-bench-cp-"));
const home = join(base, "home");
const cwd = join(base, "repo");
const env = { ...process.env, HOME: base, GIT_CONFIG_NOSYSTEM: "1" };
for (const k of Object.keys(env)) if (k.startsWith("GIT_") && k !== "GIT_CONFIG_NOSYSTEM") delete env[k];

const paths = [];
for (let i = 0; i < FILES; i++) {
  // 10 × 10 × 100: nested like a source tree.
  const dir = join(`pkg${i % 10}`, `mod${Math.floor(i / 10) % 10}`);
  paths.push(join(dir, `file${i}.txt`));
}
function writeAll(list, tag) {
  for (const p of list) writeFileSync(join(cwd, p), `${p} ${tag}\n`);
}
for (const p of paths) mkdirSync(join(cwd, p, ".."), { recursive: true });
writeAll(paths, "v0");
writeFileSync(join(cwd, ".gitignore"), "node_modules/\n");
const git = (args) => execFileSync("git", args, { cwd, env, stdio: "ignore" });
git(["init", "-q"]);
git(["add", "-A"]);
git(["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"]);

const cp = await Checkpoints.open({ home, cwd, sessionId: "bench", env });
if (!(cp instanceof Checkpoints)) throw new Error(cp.unavailable);

/** CPU ms of this process and its waited-for children (git), from /proc: wall time alone is at the mercy
 * of whatever else the machine is running. Clock ticks are 10 ms, so single figures are coarse. */
function cpuMs() {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * 10;
}

const cpu = [];
async function time(fn) {
  const c0 = cpuMs();
  const start = performance.now();
  await fn();
  cpu.push(cpuMs() - c0);
  return performance.now() - start;
}
function cpuSince(mark) {
  return `${median(cpu.slice(mark)).toFixed(0)} ms`;
}

let turn = 0;
const first = await time(() => cp.snapshot(++turn));
const rows = [
  {
    operation: `first snapshot (${FILES} files)`,
    p50: `${first.toFixed(1)} ms`,
    max: "",
    cpu: cpuSince(0),
    n: 1,
  },
];
const series = async (label, before) => {
  const times = [];
  const mark = cpu.length;
  for (let r = 0; r < RUNS; r++) {
    before(r);
    times.push(await time(() => cp.snapshot(++turn)));
  }
  rows.push({
    operation: label,
    p50: `${median(times).toFixed(1)} ms`,
    max: `${quantile(times, 1).toFixed(1)} ms`,
    cpu: cpuSince(mark),
    n: RUNS,
  });
};
await series("snapshot, nothing changed", () => {});
await series("snapshot after touching 1 file", (r) => writeAll([paths[r * 13]], `t1-${r}`));
await series("snapshot after touching 100 files", (r) =>
  writeAll(
    paths.filter((_, i) => i % 100 === r),
    `t100-${r}`,
  ),
);
await series("snapshot after creating 10 files", (r) => {
  for (let i = 0; i < 10; i++) writeFileSync(join(cwd, `pkg0/new-${r}-${i}.txt`), "new\n");
});

const fp = [];
const fpMark = cpu.length;
for (let r = 0; r < RUNS; r++) fp.push(await time(() => cp.fingerprint()));
rows.push({
  operation: "fingerprint",
  p50: `${median(fp).toFixed(1)} ms`,
  max: `${quantile(fp, 1).toFixed(1)} ms`,
  cpu: cpuSince(fpMark),
  n: RUNS,
});

const restores = [];
let restoreMark;
for (let r = 0; r < 3; r++) {
  writeAll(
    paths.filter((_, i) => i % 50 === r),
    `undo-${r}`,
  );
  const target = turn;
  await cp.snapshot(++turn);
  writeAll(
    paths.filter((_, i) => i % 100 === r + 50),
    `broken-${r}`,
  );
  restoreMark ??= cpu.length;
  restores.push(await time(() => cp.restore(target + 1)));
}
rows.push({
  operation: "restore (100 files back)",
  p50: `${median(restores).toFixed(1)} ms`,
  max: `${quantile(restores, 1).toFixed(1)} ms`,
  cpu: cpuSince(restoreMark),
  n: restores.length,
});
const list = await time(() => cp.list());
rows.push({
  operation: `list (${(await cp.list()).length} checkpoints)`,
  p50: `${list.toFixed(1)} ms`,
  max: "",
  cpu: cpuSince(cpu.length - 1),
  n: 1,
});

table(rows);
console.log("cpu: median CPU time of relm and its git processes (user + system) per operation");
console.log(
  `load average during the run: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
);
const du = execFileSync("du", ["-sh", cp.gitDir], { encoding: "utf8" }).split("\t")[0];
console.log(
  `shadow repository size: ${du}; git ${execFileSync("git", ["--version"], { encoding: "utf8" }).trim()}`,
);
rmSync(base, { recursive: true, force: true });
