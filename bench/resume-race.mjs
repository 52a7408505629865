// What a `relm run --resume ID` costs when another process holds the session (issue 19's race: the
// loser must exit at once). One session is held by a resume whose model request never answers; then
// `relm run --resume` is started against it again and again, each measured on its own (CPU of the
// process, from /proc via measure.py, and wall time). `--rounds N` (default 20).
import { execFile, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { median, quantile, ROOT, scriptedEnv, table } from "./lib.mjs";

/** One run measured by measure.py, whatever its exit code (a loser exits 1). */
async function measured(args, env, cwd) {
  const measure = join(ROOT, "bench/measure.py");
  const { stdout } = await promisify(execFile)("python3", [measure, "--no-poll", "node", ...args], {
    env,
    cwd,
  });
  return JSON.parse(stdout);
}

const rounds = Number(process.argv[process.argv.indexOf("--rounds") + 1]) || 20;
const bin = join(ROOT, "dist/cli/relm.cjs");
const { startScriptedModel } = await import(join(ROOT, "dist/scripted/index.js"));
const model = await startScriptedModel({
  script: (ctx) => (ctx.index === 0 ? { text: "first" } : { text: "never", delayMs: 600_000 }),
});
const { env } = scriptedEnv(model, "relm-bench-race-");
env.RELM_MODE = "full";
const cwd = mkdtempSync(join(tmpdir(), "relm-bench-race-cwd-"));

const first = await promisify(execFile)("node", [bin, "run", "--json", "first"], { env, cwd });
const id = JSON.parse(first.stdout.split("\n")[0]).id;
const holder = spawn("node", [bin, "run", "--resume", id, "hold"], { env, cwd, stdio: "ignore" });
while (model.requests.length < 2) await new Promise((r) => setTimeout(r, 50));

const cpu = [];
const wall = [];
try {
  for (let i = 0; i < rounds; i++) {
    const result = await measured([bin, "run", "--resume", id, "lose"], env, cwd);
    if (result.code !== 1 || !result.stderr.includes("already has a live host"))
      throw new Error(`a losing resume exited ${result.code}: ${result.stderr}`);
    cpu.push(result.cpu_ms);
    wall.push(result.wall_ms);
  }
} finally {
  holder.kill("SIGTERM");
  await model.close();
}
const row = (name, values) => ({
  figure: name,
  median: median(values).toFixed(0),
  p90: quantile(values, 0.9).toFixed(0),
});
table([row("losing resume, CPU ms", cpu), row("losing resume, wall ms", wall)]);
