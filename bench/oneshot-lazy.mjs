// A plain answer and a one-cell task, one-shot `relm run`, against an instant scripted model, interleaved
// between this tree and another build (issue 24, goal 2: what a plain answer costs, and what the first
// cell waits for its kernel). Run after `npm run build`:
//   node bench/oneshot-lazy.mjs [BASE_TREE] [rounds=10]
// BASE_TREE: a built checkout (e.g. a `git worktree` of the base revision); without it only this tree.
// The figures in docs/benchmarks.md for a kernel started at the reply's first tool call were taken in a
// checkout of f103c15 (that prototype) against a build of edff2c1 (the kernel started beside the request).
import { readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { startScriptedModel } from "../dist/scripted/index.js";
import { measureAsync, median, ROOT, scriptedEnv, table } from "./lib.mjs";

const base = process.argv[2];
const ROUNDS = Number(process.argv[3] ?? 10);
const model = await startScriptedModel({
  script: (ctx) =>
    ctx.lastUserText?.includes("plain")
      ? { text: "a plain answer" }
      : ctx.lastToolResult
        ? { text: `the kernel said ${ctx.lastToolResult.trim()}` }
        : { code: "print(1+1)" },
});
const { home, env } = scriptedEnv(model, "relm-bench-home-");
const trees = base ? { base, now: ROOT } : { now: ROOT };
const tasks = { plain: "a plain question", cell: "what is 1+1?" };
const runs = {}; // `${tree} ${task}` -> [{wall_ms, cpu_ms}]
const loads = [];

/**
 * From the run's journal: model response → the first cell's output, less the cell's own run time. That is
 * what the first cell waited for its kernel (and the checkpoint's gate) once the model had answered.
 */
function firstCellWait(stderr) {
  const id = /session (\w+)/.exec(stderr)?.[1];
  if (!id) return undefined;
  const events = readFileSync(join(home, "sessions", id, "journal.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const response = events.find((e) => e.type === "model_response");
  const output = events.find((e) => e.type === "cell_output");
  if (!response || !output) return undefined;
  return Date.parse(output.t) - Date.parse(response.t) - (output.durationMs ?? 0);
}
try {
  for (const tree of Object.values(trees))
    await measureAsync(process.execPath, [join(tree, "dist/cli/relm.cjs"), "run", tasks.cell], env); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = Object.keys(trees);
    if (round % 2) order.reverse();
    for (const task of Object.keys(tasks))
      for (const name of order) {
        const r = await measureAsync(
          process.execPath,
          [join(trees[name], "dist/cli/relm.cjs"), "run", tasks[task]],
          env,
        );
        runs[`${name} ${task}`] = [...(runs[`${name} ${task}`] ?? []), r];
      }
    loads.push(loadavg()[0]);
  }
  const rows = [];
  for (const task of Object.keys(tasks))
    for (const name of Object.keys(trees)) {
      const rs = runs[`${name} ${task}`];
      rows.push({
        tree: name,
        task,
        "wall ms (median)": median(rs.map((r) => r.wall_ms)).toFixed(0),
        "CPU ms (median)": median(rs.map((r) => r.cpu_ms)).toFixed(0),
        "peak RSS sum MB": (median(rs.map((r) => r.peak_rss_sum_kb)) / 1024).toFixed(0),
        "first cell's wait ms":
          task === "cell" ? median(rs.map((r) => firstCellWait(r.stderr))).toFixed(0) : "-",
      });
    }
  console.log(`# one-shot, instant scripted model, ${ROUNDS} interleaved rounds`);
  table(rows);
  if (base) {
    // Paired by round (both trees ran back to back): what the lazy start adds to the first cell's wait.
    const waits = (name) => runs[`${name} cell`].map((r) => firstCellWait(r.stderr));
    const [b, n] = [waits("base"), waits("now")];
    const diffs = n.map((v, i) => v - b[i]).sort((x, y) => x - y);
    const q = (p) => diffs[Math.min(diffs.length - 1, Math.floor(p * diffs.length))].toFixed(0);
    console.log(
      `first cell's wait, now − base, paired by round: median ${q(0.5)} ms (p25 ${q(0.25)}, p75 ${q(0.75)})`,
    );
  }
  console.log(`load average (1 min): ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`);
} finally {
  await model.close();
  rmSync(home, { recursive: true, force: true });
}
