// `npm run bench`: every benchmark in turn, each printing its own figures. The learning benchmark
// (bench/learning/, minutes to hours) is not among them: `node bench/learning/run.mjs` (docs/learning.md).
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const argv = process.argv.slice(2);
// `npm run bench -- --compare REV [--quick]`: the key figures against REV, interleaved (bench/compare.mjs).
if (argv.some((a) => a.startsWith("--compare"))) {
  const r = spawnSync(process.execPath, [`${dir}compare.mjs`, ...argv], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}
const only = argv;
const skip = new Set([
  "run.mjs",
  "lib.mjs",
  "tui-lib.mjs",
  "compare.mjs",
  "compare-probes.mjs",
  "web-tree-host.mjs",
  "web-real-tree.mjs",
]);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".mjs") && !skip.has(f))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n== ${file}`);
  const r = spawnSync(process.execPath, [`${dir}${file}`], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exitCode = failed > 0 ? 1 : 0;
