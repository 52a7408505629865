// Scale-out through slurm:// on a single-node Slurm cluster started here (test/support/slurm.ts),
// through `relm run` against an instant scripted model:
//  1. fan-out: rlm.map over 32 items, one cell each, 32 at once: local kernels (forked from the warm
//     template) vs slurm:// (one srun job per kernel) vs slurm://?alloc=session (steps of one held
//     allocation); wall time measured inside the parent's cell;
//  2. what a live remote child costs the host: N children (8, then 32) hold their kernels in a cell
//     while the host is sampled; the host side is relm's own processes and the srun client of each
//     remote kernel (the kernels themselves run under slurmstepd, which on a cluster is another
//     machine). Per child: the difference between 32 and 8, divided by 24.
// Linux, as root.   npm run build --silent && node bench/launchers-scale.mjs
import { execFile } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { byTask, startScriptedModel } from "../dist/scripted/index.js";
import { ROOT, scriptedEnv, startTestSlurm, table } from "./lib.mjs";

/** True when every chunk a file of the bundle imports is there (a copy taken mid-build is not). */
function complete(cli) {
  if (!existsSync(join(cli, "app.js"))) return false;
  for (const f of readdirSync(cli).filter((n) => n.endsWith(".js"))) {
    for (const m of readFileSync(join(cli, f), "utf8").matchAll(/"\.\/((?:chunk-[A-Z0-9]+|app)\.js)"/g))
      if (!existsSync(join(cli, m[1]))) return false;
  }
  return true;
}

// A copy of the build (as bench/mcp.mjs): another developer's rebuild while this runs cannot break it.
const BUILD = mkdtempSync(join(os.tmpdir(), "relm-bench-scale-build-"));
process.on("exit", () => rmSync(BUILD, { recursive: true, force: true }));
for (let attempt = 0; ; attempt++) {
  rmSync(join(BUILD, "dist"), { recursive: true, force: true });
  cpSync(join(ROOT, "dist"), join(BUILD, "dist"), { recursive: true });
  if (complete(join(BUILD, "dist/cli"))) break;
  if (attempt === 20) throw new Error("dist/ is incomplete: run npm run build");
  await new Promise((resolve) => setTimeout(resolve, 3000));
}
copyFileSync(join(ROOT, "package.json"), join(BUILD, "package.json"));
symlinkSync(join(ROOT, "python"), join(BUILD, "python"));
symlinkSync(join(ROOT, "node_modules"), join(BUILD, "node_modules"));

const slurm = await startTestSlurm();
if (!slurm) {
  console.log("skipped: Slurm daemons not installed, or not root");
  process.exit(0);
}
const TICKS = 100; // USER_HZ: /proc/PID/stat counts CPU time in 1/100 s on Linux
const SLURM = (extra = "") => `kernel=f"slurm://?python={sys.executable}${extra}"`;

const fanOut = (kernel) => `import sys, time
t = time.perf_counter()
out = rlm.map("CHILD: one cell", range(32), max_parallel=32${kernel ? `, ${kernel}` : ""})
print(f"wall={(time.perf_counter() - t) * 1000:.0f} ok={out == list(range(32))}")`;

const hold = (n, child = "CHILD: hold") => `import sys
out = rlm.map("${child}", range(${n}), max_parallel=64, ${SLURM()})
print(len(out))`;
const HOLD_CELL =
  "import os, time\nopen(f'live-{item}', 'w').close()\n" +
  "while not os.path.exists('release'):\n    time.sleep(0.5)\nsubmit(item)";

const echo = (ctx) => ({ text: ctx.lastToolResult?.trim() ?? "" });
const model = await startScriptedModel({
  script: byTask({
    "ROOT: fan out local": [{ code: fanOut("") }, echo],
    "ROOT: fan out slurm": [{ code: fanOut(SLURM()) }, echo],
    "ROOT: fan out slurm alloc": [{ code: fanOut(SLURM("&alloc=session")) }, echo],
    "ROOT: hold 8": [{ code: hold(8) }, echo],
    "ROOT: hold 32": [{ code: hold(32) }, echo],
    "ROOT: hold 32 after 10 turns": [{ code: hold(32, "CHILD: 9 cells, then hold") }, echo],
    "CHILD: 9 cells, then hold": [
      ...Array.from({ length: 9 }, (_, i) => ({ code: `x = ${i}` })),
      { code: HOLD_CELL },
    ],
    "CHILD: one cell": [{ code: "submit(item)" }],
    "CHILD: hold": [{ code: HOLD_CELL }],
  }),
});
const { home, env: baseEnv } = scriptedEnv(model, "relm-bench-scale-");
const env = { ...baseEnv, SLURM_CONF: slurm.conf };
const relm = join(BUILD, "dist/cli/relm.cjs");

function run(task, cwd) {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [relm, "run", task],
      { env, cwd, encoding: "utf8" },
      (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out.trim())),
    );
    run.pid = child.pid;
  });
}

/** pid -> {ppid, comm, cpu ticks, rss kB, pss kB} for every process (Linux /proc). */
function processes() {
  const all = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const rollup = readFileSync(`/proc/${entry}/smaps_rollup`, "utf8");
      const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0);
      all.set(Number(entry), {
        ppid: Number(rest[1]),
        comm,
        cpu: Number(rest[11]) + Number(rest[12]),
        rss: kb("Rss"),
        pss: kb("Pss"),
      });
    } catch {
      // gone meanwhile
    }
  }
  return all;
}

/** relm's host-side processes under `root`: node and srun, not Python kernels or their keepers. */
function hostSide(root) {
  const all = processes();
  const mine = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, p] of all)
      if (!mine.has(pid) && mine.has(p.ppid)) {
        mine.add(pid);
        grew = true;
      }
  }
  const out = {
    node: { n: 0, cpu: 0, rss: 0, pss: 0 },
    srun: { n: 0, cpu: 0, rss: 0, pss: 0 },
    left: new Set(),
  };
  for (const pid of mine) {
    const p = all.get(pid);
    const kind =
      p.comm === "srun"
        ? "srun"
        : p.comm.startsWith("node") || (p.comm.startsWith("relm") && !p.comm.includes("keeper"))
          ? "node"
          : undefined;
    if (!kind) {
      out.left.add(p.comm);
      continue;
    }
    const o = out[kind];
    o.n++;
    o.cpu += p.cpu;
    o.rss += p.rss;
    o.pss += p.pss;
  }
  return out;
}

const until = async (probe, ms = 300_000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (probe()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("timed out");
};

async function holdAndSample(n, task = `ROOT: hold ${n}`) {
  const cwd = mkdtempSync(join(os.tmpdir(), "relm-bench-hold-"));
  const done = run(task, cwd);
  const root = run.pid;
  const t0 = Date.now();
  await until(() => readdirSync(cwd).filter((f) => f.startsWith("live-")).length === n);
  const startMs = Date.now() - t0;
  const before = hostSide(root);
  const WINDOW = 10_000;
  await new Promise((r) => setTimeout(r, WINDOW));
  const after = hostSide(root);
  writeFileSync(join(cwd, "release"), "");
  const out = await done;
  if (out !== String(n)) throw new Error(`hold ${n}: ${out}`);
  rmSync(cwd, { recursive: true, force: true });
  const idleCpu = (k) => ((after[k].cpu - before[k].cpu) / TICKS / (WINDOW / 1000)) * 100; // % of one core
  return {
    n,
    startMs,
    srun: after.srun.n,
    nodeRss: after.node.rss / 1024,
    nodePss: after.node.pss / 1024,
    srunRss: after.srun.rss / 1024,
    srunPss: after.srun.pss / 1024,
    nodeIdleCpu: idleCpu("node"),
    srunIdleCpu: idleCpu("srun"),
    startCpuS: (before.node.cpu + before.srun.cpu) / TICKS,
    nodeProcs: after.node.n,
    notCounted: [...after.left].sort().join(" "),
  };
}

try {
  const fan = [];
  for (const [name, task] of [
    ["local, forked kernels", "ROOT: fan out local"],
    ["slurm:// (a job per kernel)", "ROOT: fan out slurm"],
    ["slurm://?alloc=session (steps)", "ROOT: fan out slurm alloc"],
  ]) {
    const cwd = mkdtempSync(join(os.tmpdir(), "relm-bench-fan-"));
    const t0 = Date.now();
    const out = Object.fromEntries((await run(task, cwd)).split(" ").map((kv) => kv.split("=")));
    fan.push({ children: name, "map wall ms": out.wall, "relm run wall ms": Date.now() - t0, ok: out.ok });
    rmSync(cwd, { recursive: true, force: true });
  }
  console.log(
    `# fan-out: rlm.map over 32 items, 32 at once, one cell each, instant model (load ${os.loadavg()[0].toFixed(1)})`,
  );
  table(fan);

  const a = await holdAndSample(8);
  const b = await holdAndSample(32);
  const f = (v, d = 1) => v.toFixed(d);
  console.log(
    `\n# host side per live remote child (slurm://): relm's node processes + one srun each (load ${os.loadavg()[0].toFixed(1)})`,
  );
  table(
    [a, b].map((s) => ({
      children: s.n,
      "all live after ms": s.startMs,
      "srun procs": s.srun,
      "node RSS MB": f(s.nodeRss),
      "srun RSS MB": f(s.srunRss),
      "srun PSS MB": f(s.srunPss),
      "node CPU idle %": f(s.nodeIdleCpu, 2),
      "srun CPU idle %": f(s.srunIdleCpu, 2),
      "host CPU s to start": f(s.startCpuS, 2),
    })),
  );
  console.log(
    `counted: ${b.nodeProcs} relm (node) processes and the srun clients; not counted (kernels, keepers): ${b.notCounted}`,
  );
  const c = await holdAndSample(32, "ROOT: hold 32 after 10 turns");
  const turnMs = ((c.startCpuS - b.startCpuS) * 1000) / (32 * 9);
  console.log(
    `host CPU per model turn of a remote child (32 children, 10 turns vs 1 each, instant model): ${f(turnMs, 1)} ms ` +
      `(${f(c.startCpuS, 2)} s vs ${f(b.startCpuS, 2)} s)`,
  );
  const per = (k) => (b[k] - a[k]) / (b.n - a.n);
  console.log(
    `per child (32 vs 8): node RSS ${f(per("nodeRss"), 2)} MB, srun RSS ${f(per("srunRss"), 2)} MB (PSS ${f(per("srunPss"), 2)} MB), ` +
      `idle CPU ${f(per("nodeIdleCpu") + per("srunIdleCpu"), 3)} % of a core, CPU to start ${f(per("startCpuS") * 1000, 0)} ms`,
  );
} finally {
  await model.close();
  await slurm.stop();
  rmSync(home, { recursive: true, force: true });
}
