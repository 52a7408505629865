// A one-shot run against a scripted model that answers instantly: task -> one cell `print(1+1)` -> answer.
// Measures the whole `relm run` process tree (Node + Python kernel): wall time and peak summed RSS.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startScriptedModel } from "../dist/scripted/index.js";
import { measureAsync, median, quantile, ROOT, scriptedEnv, table } from "./lib.mjs";

const RUNS = Number(process.env.RUNS ?? 10);
const model = await startScriptedModel({
  script: (ctx) =>
    ctx.lastToolResult ? { text: `the kernel said ${ctx.lastToolResult.trim()}` } : { code: "print(1+1)" },
});
const { home, env } = scriptedEnv(model, "relm-bench-home-");
try {
  const runs = [];
  for (let i = 0; i < RUNS + 1; i++) {
    runs.push(
      await measureAsync(process.execPath, [join(ROOT, "dist/cli/relm.cjs"), "run", "what is 1+1?"], env),
    );
  }
  const [first, ...warm] = runs;
  console.log(`# one-shot run, instant scripted model (first run, then median/p90 of ${RUNS} more)`);
  table([
    {
      run: "first (interpreter probe)",
      "wall ms": first.wall_ms.toFixed(0),
      "peak RSS sum MB": (first.peak_rss_sum_kb / 1024).toFixed(0),
    },
    {
      run: "warm median",
      "wall ms": median(warm.map((r) => r.wall_ms)).toFixed(0),
      "peak RSS sum MB": (median(warm.map((r) => r.peak_rss_sum_kb)) / 1024).toFixed(0),
    },
    {
      run: "warm p90",
      "wall ms": quantile(
        warm.map((r) => r.wall_ms),
        0.9,
      ).toFixed(0),
      "peak RSS sum MB": (
        quantile(
          warm.map((r) => r.peak_rss_sum_kb),
          0.9,
        ) / 1024
      ).toFixed(0),
    },
  ]);
  console.log("goal: under 1000 ms and 150 MB");
} finally {
  await model.close();
  rmSync(home, { recursive: true, force: true });
}
