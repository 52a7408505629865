// Sub-agents end to end, through `relm run` against a scripted model on 127.0.0.1:
//  1. spawn-to-result of a child doing one cell (instant model), measured inside the parent's cell;
//  2. fan-out: 32 children at once, one cell each (instant model): wall time and peak memory of the tree;
//  3. rlm.map over 8 items with a model that takes 300 ms per response, against the sequential time.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { byTask, startScriptedModel } from "../dist/scripted/index.js";
import { measureAsync, ROOT, scriptedEnv, table } from "./lib.mjs";

const SEQUENTIAL = `import time
ts = []
for i in range(21):
    t = time.perf_counter()
    rlm("CHILD: one cell")
    ts.append((time.perf_counter() - t) * 1000)
rest = sorted(ts[1:])
print(f"first={ts[0]:.1f} p50={rest[len(rest) // 2]:.1f} p90={rest[int(len(rest) * 0.9)]:.1f}")`;

const FAN_OUT = `import time
t = time.perf_counter()
out = rlm.map("CHILD: one cell", range(32), max_parallel=32)
print(f"wall={(time.perf_counter() - t) * 1000:.0f} n={len(out)}")`;

const SLOW_MAP = `import time
t = time.perf_counter()
out = rlm.map("SLOW CHILD: one cell", range(8))
print(f"wall={(time.perf_counter() - t) * 1000:.0f} ok={out == [i * 2 for i in range(8)]}")`;

const echo = (ctx) => ({ text: ctx.lastToolResult?.trim() ?? "" });
const model = await startScriptedModel({
  script: byTask({
    "ROOT: sequential": [{ code: SEQUENTIAL }, echo],
    "ROOT: fan out": [{ code: FAN_OUT }, echo],
    "ROOT: slow map": [{ code: SLOW_MAP }, echo],
    "SLOW CHILD: one cell": [{ code: "submit(item * 2)", delayMs: 300 }],
    "CHILD: one cell": [{ code: "print(1 + 1)" }, { text: "2" }],
  }),
});
const { home, env } = scriptedEnv(model, "relm-bench-home-");
const relm = join(ROOT, "dist/cli/relm.cjs");

async function run(task) {
  const { stdout } = await import("node:child_process").then(
    ({ execFile }) =>
      new Promise((resolve, reject) =>
        execFile(process.execPath, [relm, "run", task], { env, encoding: "utf8" }, (err, out, errOut) =>
          err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve({ stdout: out }),
        ),
      ),
  );
  return stdout.trim();
}

try {
  const seq = Object.fromEntries((await run("ROOT: sequential")).split(" ").map((kv) => kv.split("=")));
  console.log("# spawn-to-result: rlm() of a child doing one cell, instant model (21 in a row)");
  table([
    { child: "first (starts the kernel template)", ms: seq.first },
    { child: "next 20, p50", ms: seq.p50 },
    { child: "next 20, p90", ms: seq.p90 },
  ]);
  console.log("goal: under 150 ms\n");

  const fan = await measureAsync(process.execPath, [relm, "run", "ROOT: fan out"], env);
  console.log("# fan-out: rlm.map over 32 items, 32 at once, one cell each, instant model");
  table([
    {
      "map wall ms": "(see run)",
      "relm run wall ms": fan.wall_ms.toFixed(0),
      "peak RSS sum MB": (fan.peak_rss_sum_kb / 1024).toFixed(0),
      "peak PSS sum MB": (fan.peak_pss_sum_kb / 1024).toFixed(0),
    },
  ]);
  const fanOut = await run("ROOT: fan out");
  console.log(`inside the cell: ${fanOut}  (goal: under 3 s and 1.5 GB)\n`);

  const slow = await run("ROOT: slow map");
  console.log("# rlm.map over 8 items, model latency 300 ms per response");
  console.log(`${slow}; sequential would take at least ${8 * 300} ms of model time alone`);
} finally {
  await model.close();
  rmSync(home, { recursive: true, force: true });
}
