// A plain answer and a one-cell task, one-shot `relm run`, against an instant scripted model, interleaved
// between the working tree and another build (issue 24, goal 2: no kernel for a plain answer; what the
// first cell waits when the kernel starts at the reply's first tool call). Run after `npm run build`:
//   node bench/oneshot-lazy.mjs [BASE_TREE] [rounds=10]
// BASE_TREE: a built checkout (e.g. a `git worktree` of the base revision); without it only this tree.
import { rmSync } from "node:fs";
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
      });
    }
  console.log(`# one-shot, instant scripted model, ${ROUNDS} interleaved rounds`);
  table(rows);
  console.log(`load average (1 min): ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`);
} finally {
  await model.close();
  rmSync(home, { recursive: true, force: true });
}
