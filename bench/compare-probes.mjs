// The figures `npm run bench -- --compare REV` measures, each for one tree (the working tree or REV's
// worktree): probe(tree) runs relm from TREE/dist once and returns one number (lower is better). The
// scripted model and the fixtures come from the working tree's dist, the same for both trees, so only
// relm differs. Each probe is small: compare.mjs calls them many times, alternating the trees.
import assert from "node:assert";
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { byTask, startScriptedModel } from "../dist/scripted/index.js";
import { Journal, newSessionId, sessionDir } from "../dist/session/index.js";
import { median, ROOT, scriptedEnv } from "./lib.mjs";

const MEASURE = join(ROOT, "bench/measure.py");
const relmOf = (tree) => join(tree, "dist/cli/relm.cjs");

function execAsync(cmd, args, options) {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { encoding: "utf8", maxBuffer: 1 << 24, ...options }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} ${args.join(" ")}: ${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

/** Wall and CPU (the whole process tree's, from the kernel's accounting) of one command. */
async function measured(args, env) {
  const out = await execAsync("python3", [MEASURE, "--no-poll", process.execPath, ...args], { env });
  const r = JSON.parse(out);
  if (r.code !== 0) throw new Error(`relm ${args.slice(1).join(" ")} exited ${r.code}: ${r.stderr}`);
  return r;
}

/** The last line `key=value ...` a `relm run` printed, as numbers. */
function figures(stdout) {
  const line = stdout.trim().split("\n").at(-1) ?? "";
  return Object.fromEntries(line.split(" ").map((kv) => [kv.split("=")[0], Number(kv.split("=")[1])]));
}

// turncpu: two runs of `x = 1` cells, LONG and SHORT turns; their difference is what the turns cost
const TURNCPU_LONG = 300;
const TURNCPU_SHORT = 20;
const cells = (n) => [...Array.from({ length: n }, () => ({ code: "x = 1" })), { text: "done" }];

const SEQUENTIAL = (n) => `import time
ts = []
for i in range(${n + 1}):
    t = time.perf_counter()
    rlm("CHILD: one cell")
    ts.append((time.perf_counter() - t) * 1000)
rest = sorted(ts[1:])
print(f"p50={rest[len(rest) // 2]:.2f}")`;

const FAN_OUT = (n) => `import time
t = time.perf_counter()
out = rlm.map("CHILD: one cell", range(${n}), max_parallel=${n})
print(f"wall={(time.perf_counter() - t) * 1000:.1f} n={len(out)}")`;

/**
 * Everything the probes share: one scripted model and the per-turn clock (when each model request of a
 * "TURNS" task arrived); and for each of `trees` a home of its own and one with `sessions` saved sessions
 * for the listing. Not one home for both: where the two write their caches in different formats (the
 * interpreter probe's, ~60 ms of a one-shot run's CPU) each tree re-probes after every run of the other,
 * in half of its runs, and the median of that two-humped sample lands between the humps: the one-shot
 * CPU's 1.05 against 39ea0e8 was that (its runs without a probe: 510 → 511 ms).
 */
export async function startFixture({ sessions, turns, children, trees }) {
  let arrivals = [];
  const echo = (ctx) => ({ text: ctx.lastToolResult?.trim() ?? "" });
  const turnSteps = Array.from({ length: turns }, () => (_ctx) => {
    arrivals.push(performance.now());
    return { code: "x = 1" };
  });
  const model = await startScriptedModel({
    script: byTask({
      "ROOT: sequential": [{ code: SEQUENTIAL(children) }, echo],
      "ROOT: fan out": [{ code: FAN_OUT(32) }, echo],
      "ROOT: wide fan-out": [{ code: FAN_OUT(256) }, echo], // byTask matches by substring: not "ROOT: fan out …"
      "CHILD: one cell": [{ code: "print(1 + 1)" }, { text: "2" }],
      TURNS: [
        ...turnSteps,
        () => {
          arrivals.push(performance.now());
          return { text: "done" };
        },
      ],
      // turncpu's two runs (names without "TURNS" in them: byTask matches by substring)
      "LONG RUN OF CELLS": cells(TURNCPU_LONG),
      "SHORT RUN OF CELLS": cells(TURNCPU_SHORT),
      "what is 1+1?": [
        { code: "print(1+1)" },
        (ctx) => ({ text: `the kernel said ${ctx.lastToolResult?.trim()}` }),
      ],
    }),
  });
  // The listing's homes: synthetic sessions only (a run's own sessions would change its size), the same.
  const listing = mkdtempSync(join(tmpdir(), "relm-bench-compare-list-"));
  for (let i = 0; i < sessions; i++) fakeSession(listing);
  const dirs = [listing];
  const homes = new Map(
    trees.map((tree) => {
      const { home, env } = scriptedEnv(model, "relm-bench-compare-");
      const listHome = mkdtempSync(join(tmpdir(), "relm-bench-compare-list-"));
      cpSync(listing, listHome, { recursive: true });
      dirs.push(home, listHome);
      return [tree, { env, listEnv: { ...env, RELM_HOME: listHome } }];
    }),
  );
  const homeOf = (tree) => homes.get(tree) ?? assert.fail(`bench: no home for ${tree}`);
  const cwd = mkdtempSync(join(tmpdir(), "relm-bench-compare-cwd-"));
  dirs.push(cwd);
  return {
    model,
    env: (tree) => homeOf(tree).env,
    listEnv: (tree) => homeOf(tree).listEnv,
    cwd,
    takeArrivals() {
      const a = arrivals;
      arrivals = [];
      return a;
    },
    async close() {
      await model.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function fakeSession(home) {
  const id = newSessionId();
  const journal = Journal.create(sessionDir(home, id), {
    id,
    created: new Date().toISOString(),
    cwd: home,
    title: `synthetic session ${id}`,
    provider: "openai",
    model: "bench",
    relm: "bench",
  });
  journal.append({ type: "user", text: "synthetic" });
  journal.append({ type: "final", text: "done", spent: { turns: 1, tokens: 10, elapsedMs: 1, cost: 0 } });
  journal.close();
}

/** name → { label, unit, optIn?, run(tree, fixture, options) → number }; optIn: run only when --only names it. */
export const PROBES = {
  oneshot: {
    label: "one-shot `relm run` (one cell), wall",
    unit: "ms",
    run: async (tree, f) => (await measured([relmOf(tree), "run", "what is 1+1?"], f.env(tree))).wall_ms,
  },
  "oneshot-cpu": {
    label: "one-shot `relm run`, CPU of the tree",
    unit: "ms",
    // Measured in the same run as the wall figure would double the cost; a run of its own instead.
    run: async (tree, f) => (await measured([relmOf(tree), "run", "what is 1+1?"], f.env(tree))).cpu_ms,
  },
  spawn: {
    label: "child spawn→result p50 (in the cell)",
    unit: "ms",
    run: async (tree, f) =>
      figures(
        await execAsync(process.execPath, [relmOf(tree), "run", "ROOT: sequential"], { env: f.env(tree) }),
      ).p50,
  },
  map32: {
    label: "`rlm.map` of 32 (in the cell)",
    unit: "ms",
    run: async (tree, f) =>
      figures(await execAsync(process.execPath, [relmOf(tree), "run", "ROOT: fan out"], { env: f.env(tree) }))
        .wall,
  },
  map256: {
    label: "`rlm.map` of 256 (in the cell)",
    unit: "ms",
    optIn: true, // ~10-40 s a run: only with --only map256
    run: async (tree, f) =>
      figures(
        await execAsync(process.execPath, [relmOf(tree), "run", "ROOT: wide fan-out"], { env: f.env(tree) }),
      ).wall,
  },
  cell: {
    label: "cell round trip `x = 1` p50",
    unit: "ms",
    run: async (tree, _f, { cells }) => {
      const { startKernel } = await import(pathToFileURL(join(tree, "dist/kernel/index.js")).href);
      const kernel = await startKernel({ cwd: ROOT });
      try {
        for (let i = 0; i < 50; i++) await kernel.execute("x = 1");
        const times = [];
        for (let i = 0; i < cells; i++) {
          const t = performance.now();
          await kernel.execute("x = 1");
          times.push(performance.now() - t);
        }
        return median(times);
      } finally {
        await kernel.shutdown();
      }
    },
  },
  turn: {
    label: "per turn: model request → next request, cell `x = 1`, p50",
    unit: "ms",
    run: async (tree, f) => {
      f.takeArrivals();
      await execAsync(process.execPath, [relmOf(tree), "run", "TURNS"], { env: f.env(tree), cwd: f.cwd });
      const a = f.takeArrivals();
      return median(a.slice(2).map((t, i) => t - a[i + 1])); // the first cell starts the kernel
    },
  },
  turncpu: {
    label: `CPU per turn (host + kernel): ${TURNCPU_LONG}-turn run minus ${TURNCPU_SHORT}-turn run, per turn`,
    unit: "ms",
    // Opt-in (~15 s a run). CPU, not wall: a per-turn wall difference of a few percent can be load; the
    // CPU the turns themselves cost is not. Each request carries the whole conversation, so a turn of a
    // long run costs more than one of the 30-turn `turn` probe; the figure is for comparing trees.
    optIn: true,
    run: async (tree, f) => {
      const long = await measured([relmOf(tree), "run", "LONG RUN OF CELLS"], f.env(tree));
      const short = await measured([relmOf(tree), "run", "SHORT RUN OF CELLS"], f.env(tree));
      return (long.cpu_ms - short.cpu_ms) / (TURNCPU_LONG - TURNCPU_SHORT);
    },
  },
  paint: {
    label: "TUI launch → first paint (pty)",
    unit: "ms",
    run: async (tree, f) => {
      const { startPty, timeUntil } = await import("./tui-lib.mjs");
      const start = performance.now();
      const p = startPty({
        command: [process.execPath, relmOf(tree)],
        env: f.env(tree),
        cwd: f.cwd,
        cols: 100,
        rows: 30,
      });
      try {
        return (await timeUntil(p, (t) => t.includes("new session"), start)) ?? Number.NaN;
      } finally {
        await p.close();
        await execAsync(process.execPath, [relmOf(tree), "shutdown"], { env: f.env(tree), cwd: f.cwd }).catch(
          () => {},
        );
      }
    },
  },
  listing: {
    label: "`relm agents` (saved sessions), CPU",
    unit: "ms",
    run: async (tree, f) => (await measured([relmOf(tree), "agents"], f.listEnv(tree))).cpu_ms,
  },
};
