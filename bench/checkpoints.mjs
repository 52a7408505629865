// File checkpoints on a git repository of FILES files (default 10 000; the case is 100 000): the
// first snapshot, snapshots after a turn that touched 1 or 100 files, an unchanged one, a fingerprint, and
// a restore, as a session takes them (the work tree watched, the shadow repository started from the
// user's index, packed in the background); the same turns without the watcher (a full scan each); the
// shadow repository's size before and after packing; and a directory that is not a repository, with one
// file more than a checkpoint takes in: the first refusal and the ones after it.
// Goals (issue 10): first snapshot under 3 s, then under 150 ms per turn when one file changed.
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
git(["-c", "gc.auto=0", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"]);

async function open(sessionId, watch, dir = cwd, extra = {}) {
  const c = await Checkpoints.open({ home, cwd: dir, sessionId, env, watch, ...extra });
  if (!(c instanceof Checkpoints)) throw new Error(c.unavailable);
  return c;
}
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

let cp;
let turn = 0;
// As a session does it: opened (the shadow repository started from the user's index, the watcher set
// up) and snapshotted at once, in the background.
const first = await time(async () => {
  cp = await open("bench", true);
  await cp.snapshot(++turn);
});
const rows = [
  {
    operation: `open + first snapshot (${FILES} files, from the repository's index)`,
    p50: `${first.toFixed(1)} ms`,
    max: "",
    cpu: cpuSince(0),
    n: 1,
  },
];
const repoSize = () => {
  const du = execFileSync("du", ["-sh", cp.gitDir], { encoding: "utf8" }).split("\t")[0];
  const count = execFileSync("git", ["--git-dir", cp.gitDir, "count-objects", "-v"], { encoding: "utf8" });
  const loose = /^count: (\d+)/m.exec(count)?.[1];
  const packed = /^in-pack: (\d+)/m.exec(count)?.[1];
  return `${du} (${loose} loose objects, ${packed} packed)`;
};
const sizeAfterFirst = repoSize();
const packing = await time(() => cp.maintain());
const sizeAfterPacking = repoSize();
const series = async (label, before, target = cp) => {
  const times = [];
  const mark = cpu.length;
  for (let r = 0; r < RUNS; r++) {
    before(r);
    // A turn's writes come from the kernel, well before the next snapshot: their notices have arrived.
    await new Promise((r) => setTimeout(r, 20));
    times.push(await time(() => target.snapshot(++turn)));
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
const scanning = await open("bench-unwatched", false);
await scanning.snapshot(++turn);
await series("unwatched: snapshot, nothing changed", () => {}, scanning);
await series(
  "unwatched: snapshot after touching 1 file",
  (r) => writeAll([paths[r * 17 + 5]], `u1-${r}`),
  scanning,
);

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

cp.close();
await cp.maintain(); // a background packing may still run: let it end before the files go

// Not a repository, one file more than a checkpoint takes in: refused once, then for free.
const flood = join(base, "flood");
for (let i = 0; i <= FILES; i++) {
  const dir = join(flood, `d${i % 100}`);
  if (i < 100) mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `f${i}.txt`), `${i}\n`);
}
const refusing = await open("bench-flood", true, flood, { maxNewFiles: FILES });
for (const label of ["first refusal", "each refusal after it"]) {
  const mark = cpu.length;
  const times = [];
  for (let r = 0; r < (label === "first refusal" ? 1 : RUNS); r++) {
    times.push(
      await time(() =>
        refusing.snapshot(++turn).then(
          () => {
            throw new Error("not refused");
          },
          () => {},
        ),
      ),
    );
  }
  rows.push({
    operation: `${label} (${FILES + 1} new files, not a repository)`,
    p50: `${median(times).toFixed(1)} ms`,
    max: `${quantile(times, 1).toFixed(1)} ms`,
    cpu: cpuSince(mark),
    n: times.length,
  });
}
refusing.close();

table(rows);
console.log("cpu: median CPU time of relm and its git processes (user + system) per operation");
console.log(`shadow repository after the first snapshot: ${sizeAfterFirst}`);
console.log(`after packing (background, ${(packing / 1000).toFixed(1)} s): ${sizeAfterPacking}`);
console.log(
  `data: ${execFileSync("du", ["-sh", "--exclude=.git", cwd], { encoding: "utf8" }).split("\t")[0]}`,
);
console.log(
  `load average during the run: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
);
console.log(
  `shadow repository at the end: ${repoSize()}; git ${execFileSync("git", ["--version"], { encoding: "utf8" }).trim()}`,
);
rmSync(base, { recursive: true, force: true });
