// Variable snapshots with big data in the kernel (issue 10): a session holds an 800 MB numpy array and a
// 20-million-element list, then runs trivial cells (`x = 1`) against a scripted model that answers
// instantly. Measured: the time between one model request and the next (cell, snapshot, journal and the
// request itself), against the same session without the data; and the kernel's peak RSS (VmHWM of the
// runner process) against the data's size. A third session holds data under the snapshot caps (saved,
// then checked for changes after every cell), and a fourth gives that one a model taking 1 s, so every
// snapshot finishes while the model "thinks".
// Goal: a trivial cell adds under 20 ms between model calls; peak RSS within 10% of the data's size.
// Needs numpy for the interpreter relm uses (Debian: apt-get install python3-numpy).
// Run after `npm run build`: node bench/snapshots.mjs [TRIVIAL_CELLS]
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startScriptedModel } from "../dist/scripted/index.js";
import { median, quantile, ROOT, scriptedEnv, table } from "./lib.mjs";

const CELLS = Number(process.argv[2] ?? 15);
const BIG = [
  "import numpy as np, sys, itertools",
  "a = np.arange(100_000_000, dtype=np.float64)  # 800 MB, every page touched",
  "l = list(range(20_000_000))",
  // Ints below 257 are shared singletons; every other element is its own object.
  "data = a.nbytes + sys.getsizeof(l) + sum(map(sys.getsizeof, itertools.islice(l, 257, None)))",
].join("\n");
// The fixed cost of the design that forks the kernel after each cell and lets the child write the
// snapshot from copy-on-write memory (as Redis does its background saves): fork() itself, with the data.
const FORK = [
  "import os, time",
  "def fork_ms():",
  "    t = time.perf_counter()",
  "    pid = os.fork()",
  "    if pid == 0:",
  "        os._exit(0)",
  "    ms = (time.perf_counter() - t) * 1000",
  "    os.waitpid(pid, 0)",
  "    return ms",
  "forks = sorted(fork_ms() for _ in range(7))",
  "fork = forks[3]",
].join("\n");
const UNDER_CAPS = [
  "import numpy as np, sys",
  "m1, m2, m3 = (np.arange(5_000_000, dtype=np.float64) + i for i in range(3))  # 40 MB each",
  "d = {i: str(i) for i in range(300_000)}",
  "data = m1.nbytes * 3 + sys.getsizeof(d)",
].join("\n");
const REPORT = [
  "fork = fork if 'fork' in globals() else 0",
  "status = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines() if ':' in l)",
  "kb = lambda k: int(status[k].split()[0]) * 1024",
  "print(f\"data={data if 'data' in globals() else 0} hwm={kb('VmHWM')} rss={kb('VmRSS')} fork={fork:.1f}\")",
].join("\n");

async function session(label, setup, delayMs = 0, extra = "") {
  const arrivals = [];
  const model = await startScriptedModel({
    script: (ctx) => {
      arrivals[ctx.index] = performance.now();
      const step =
        ctx.index === 0
          ? { code: setup }
          : ctx.index <= CELLS
            ? { code: "x = 1" }
            : ctx.index === CELLS + 1
              ? { code: `${extra}\n${REPORT}` }
              : { text: ctx.lastToolResult?.trim() ?? "" };
      return ctx.index >= 2 && ctx.index <= CELLS ? { ...step, delayMs } : step;
    },
  });
  const { home, env } = scriptedEnv(model, "relm-bench-snap-");
  // An empty working directory: file checkpoints (bench/checkpoints.mjs) are not what is measured here.
  const cwd = mkdtempSync(join(tmpdir(), "relm-bench-snap-cwd-"));
  try {
    const out = await new Promise((resolve, reject) =>
      execFile(
        process.execPath,
        [join(ROOT, "dist/cli/relm.cjs"), "run", "bench"],
        { env, cwd, encoding: "utf8", maxBuffer: 1 << 24 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    const fields = Object.fromEntries(
      out
        .trim()
        .split(/\s+/)
        .map((kv) => kv.split("=")),
    );
    // Requests 2..CELLS each follow a trivial cell; the gap is everything relm did in between.
    const gaps = [];
    for (let i = 2; i <= CELLS; i++) gaps.push(arrivals[i] - arrivals[i - 1] - delayMs);
    const sessions = join(home, "sessions");
    const journal = readFileSync(join(sessions, readdirSync(sessions)[0], "journal.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const snaps = journal.filter((e) => e.type === "snapshot");
    return {
      label,
      gaps,
      data: Number(fields.data),
      hwm: Number(fields.hwm),
      fork: Number(fields.fork),
      snapshots: snaps.length,
      saved: snaps.at(-1)?.saved ?? 0,
      skipped: (snaps.at(-1)?.skipped ?? []).map((s) => s.name).join(" "),
    };
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;
const results = [
  await session("no data", "pass"),
  await session("800 MB array + 20M-element list", BIG, 0, FORK),
  await session("3 × 40 MB arrays + 300k-entry dict (under the caps)", UNDER_CAPS),
  await session("same, model takes 1 s", UNDER_CAPS, 1000),
  await session("no data, again", "pass"),
];
// The first session also warms caches (interpreter, page cache): the lower of the two is the baseline.
const base = Math.min(median(results[0].gaps), median(results.at(-1).gaps));
table(
  results.map((r) => ({
    session: r.label,
    "gap p50": `${median(r.gaps).toFixed(1)} ms`,
    "gap max": `${quantile(r.gaps, 1).toFixed(1)} ms`,
    "added p50": `${(median(r.gaps) - base).toFixed(1)} ms`,
    data: r.data ? mb(r.data) : "-",
    "kernel peak RSS": mb(r.hwm),
    "peak / data": r.data ? `${(r.hwm / r.data).toFixed(3)}` : "-",
    snapshots: `${r.snapshots} (${r.saved} saved; skipped: ${r.skipped || "none"})`,
  })),
);
console.log(
  `fork() of the kernel holding the 800 MB array and the list (median of 7): ${results[1].fork.toFixed(1)} ms`,
);
console.log(`load average: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
console.log(
  `gap: from one model request to the next after a trivial cell (instant model; model time taken out), ` +
    `${CELLS - 1} cells each; added: against the session without data`,
);
