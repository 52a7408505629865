// What the permission modes cost (issue 20): per cell (target: workspace under 2 ms more than full),
// per kernel start, per mode switch (snapshot, stop, start under the new sandbox, restore), and what
// choosing the default costs a session's start (the bubblewrap trial, cached per user). Kernels run in
// this process through the same launchers a session uses; every comparison is interleaved, so machine
// load hits the modes alike. `node bench/modes.mjs` (RUNS=, CELLS= to change the counts).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startScriptedModel } from "../dist/scripted/index.js";
import { measureAsync, median, quantile, ROOT, scriptedEnv, table } from "./lib.mjs";

const { findPython, startKernel } = await import(join(ROOT, "dist/kernel/index.js"));
const { openSandbox, settingsForMode, cachedProbe } = await import(
  join(ROOT, "dist/kernel/sandbox/index.js")
);
const { sandboxLauncher } = await import(join(ROOT, "dist/kernel/launchers/sandbox.js"));

const RUNS = Number(process.env.RUNS ?? 9);
const CELLS = Number(process.env.CELLS ?? 300);
const MODES = ["full", "workspace", "plan"];
const python = await findPython(process.env);
const project = mkdtempSync(join(os.tmpdir(), "relm-bench-modes-project-"));
const session = mkdtempSync(join(os.tmpdir(), "relm-bench-modes-session-"));
process.on("exit", () => {
  rmSync(project, { recursive: true, force: true });
  rmSync(session, { recursive: true, force: true });
});

/** A kernel in `mode`'s sandbox (none for full), as a session's tree opens it. */
async function start(mode) {
  const settings = settingsForMode(mode, "workspace", { kind: "none" });
  const sandbox = settings
    ? await openSandbox({ settings, project, sessionDir: session, env: process.env, python: python.path })
    : undefined;
  const kernel = await startKernel({
    cwd: project,
    python,
    ...(sandbox ? { launcher: sandboxLauncher(sandbox) } : {}),
  });
  const close = async () => {
    await kernel.shutdown();
    await sandbox?.close();
  };
  return { kernel, close };
}

const ms = (n, d = 2) => n.toFixed(d);
const load = () => os.loadavg()[0].toFixed(1);

// 1. Per cell: the same kernels, one per mode, running the same cells in turn.
const CELL_KINDS = [
  ["x = 1 + 1", "a tiny cell"],
  ["s = sum(range(20000))", "a little work"],
  ["!true", "a shell command (fork + exec)"],
];
const kernels = Object.fromEntries(await Promise.all(MODES.map(async (m) => [m, await start(m)])));
const perCell = new Map();
for (const [code] of CELL_KINDS) for (const m of MODES) perCell.set(`${m}\0${code}`, []);
for (let i = 0; i < CELLS; i++) {
  for (const [code] of CELL_KINDS) {
    for (const m of MODES) {
      const t0 = performance.now();
      await kernels[m].kernel.execute(code);
      perCell.get(`${m}\0${code}`).push(performance.now() - t0);
    }
  }
}
for (const m of MODES) await kernels[m].close();
console.log(
  `# per cell: ${CELLS} interleaved cells of each kind per mode (load ${load()} on ${os.cpus().length} cores)`,
);
table(
  CELL_KINDS.flatMap(([code, what]) =>
    MODES.map((m) => {
      const t = perCell.get(`${m}\0${code}`);
      const base = median(perCell.get(`full\0${code}`));
      return {
        cell: what,
        mode: m,
        "median ms": ms(median(t)),
        "p90 ms": ms(quantile(t, 0.9)),
        "median vs full": `${median(t) - base >= 0 ? "+" : ""}${ms(median(t) - base)}`,
      };
    }),
  ),
);

// 2. Per kernel start: start + first cell, a fresh sandbox each time (as a session's first kernel).
const starts = new Map(MODES.map((m) => [m, []]));
for (let i = 0; i < RUNS; i++) {
  for (const m of MODES) {
    const t0 = performance.now();
    const k = await start(m);
    await k.kernel.execute("1 + 1");
    starts.get(m).push(performance.now() - t0);
    await k.close();
  }
}
console.log(`\n# kernel start + first cell: ${RUNS} interleaved runs per mode (load ${load()})`);
const startBase = median(starts.get("full"));
table(
  MODES.map((m) => ({
    mode: m,
    "min ms": ms(Math.min(...starts.get(m)), 0),
    "median ms": ms(median(starts.get(m)), 0),
    "median vs full": `${median(starts.get(m)) - startBase >= 0 ? "+" : ""}${ms(median(starts.get(m)) - startBase, 0)}`,
  })),
);

// 3. A mode switch as /mode does it: snapshot the variables, stop the kernel, start one under the new
// mode's sandbox, restore. Ten small variables and a 1 MB array's worth of floats.
const SETUP =
  "import array\nxs = array.array('d', range(131072))\n" +
  Array.from({ length: 10 }, (_, i) => `v${i} = {'n': ${i}, 's': 'x' * 100}`).join("\n");
const switches = [];
let from = "workspace";
let current = await start(from);
await current.kernel.execute(SETUP);
for (let i = 0; i < RUNS; i++) {
  const to = from === "workspace" ? "plan" : "workspace";
  const dir = join(session, "snapshot");
  const t0 = performance.now();
  await current.kernel.snapshot(dir);
  await current.close();
  current = await start(to);
  const report = await current.kernel.restore(dir);
  switches.push(performance.now() - t0);
  if (report.restored.length < 11) throw new Error(`restored only ${report.restored.map((v) => v.name)}`);
  from = to;
}
await current.close();
console.log(
  `\n# mode switch (snapshot, stop, start under the other mode, restore 11 variables, ~1 MB): ${RUNS} runs`,
);
table([
  {
    "min ms": ms(Math.min(...switches), 0),
    "median ms": ms(median(switches), 0),
    "p90 ms": ms(quantile(switches, 0.9), 0),
  },
]);

// 4. Choosing the default at a session's start: the cached answer, and the trial it saves.
const cacheDir = mkdtempSync(join(os.tmpdir(), "relm-bench-modes-cache-"));
const time = (f, n) => {
  const t = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    f();
    t.push(performance.now() - t0);
  }
  return t;
};
const miss = time(() => cachedProbe(process.env, cacheDir, true), 20);
const hit = time(() => cachedProbe(process.env, cacheDir), 200);
rmSync(cacheDir, { recursive: true, force: true });
console.log("\n# the default mode at a session's start: the bubblewrap trial, and its cached answer");
table([
  {
    what: "trial (first start; relm doctor)",
    "median ms": ms(median(miss)),
    "p90 ms": ms(quantile(miss, 0.9)),
  },
  {
    what: "cached answer (every later start)",
    "median ms": ms(median(hit), 3),
    "p90 ms": ms(quantile(hit, 0.9), 3),
  },
]);

// 5. The commands that must stay fast: `relm --version` (never asks), and `relm -p` with the default
// (workspace: the cached answer, then the sandbox) against RELM_MODE=full, interleaved. An instant
// scripted model: task -> one cell -> answer. The first run of each fills the caches; not counted.
const model = await startScriptedModel({
  script: (ctx) =>
    ctx.lastToolResult ? { text: `said ${ctx.lastToolResult.trim()}` } : { code: "print(1+1)" },
});
const { home, env } = scriptedEnv(model, "relm-bench-modes-home-");
try {
  const main = join(ROOT, "dist/cli/relm.cjs");
  const version = [];
  for (let i = 0; i < RUNS; i++)
    version.push((await measureAsync(process.execPath, [main, "--version"], env)).wall_ms);
  if (existsSync(join(home, "cache", "sandbox-probe.json"))) throw new Error("relm --version ran the trial");
  const variants = [
    ["-p, default (workspace)", { ...env, RELM_MODE: "" }],
    ["-p, RELM_MODE=full", { ...env, RELM_MODE: "full" }],
  ];
  for (const [, e] of variants)
    await measureAsync(process.execPath, [main, "-p", "what is 1+1?"], e, project);
  const runs = new Map(variants.map(([name]) => [name, []]));
  for (let i = 0; i < RUNS; i++)
    for (const [name, e] of variants)
      runs
        .get(name)
        .push((await measureAsync(process.execPath, [main, "-p", "what is 1+1?"], e, project)).wall_ms);
  console.log(`\n# relm --version and relm -p: ${RUNS} interleaved runs each (load ${load()})`);
  table([
    { command: "relm --version", "min ms": ms(Math.min(...version), 0), "median ms": ms(median(version), 0) },
    ...variants.map(([name]) => ({
      command: `relm ${name}`,
      "min ms": ms(Math.min(...runs.get(name)), 0),
      "median ms": ms(median(runs.get(name)), 0),
    })),
  ]);
} finally {
  await model.close();
  rmSync(home, { recursive: true, force: true });
}
console.log("goal: workspace under 2 ms more than full per cell");
