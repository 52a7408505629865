// What the model catalog costs: importing its module (nothing is read), the first lookup (models.json
// read, parsed and indexed), later lookups of a known and an unknown model; and, when PI_AI names an
// installed @mariozechner/pi-ai (node_modules directory), what importing that package costs, the
// alternative that carries the same registry. Each figure in a fresh Node: wall and CPU time (steadier on
// a busy machine), median of N runs. Needs `npm run build` first (dist/llm/catalog/).
//   node bench/catalog.mjs            PI_AI=/tmp/pi-eval/node_modules/@mariozechner/pi-ai node bench/catalog.mjs
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { median, ROOT, table } from "./lib.mjs";

const RUNS = Number(process.env.RUNS ?? 15);
const catalog = pathToFileURL(join(ROOT, "dist/llm/catalog/index.js")).href;

/** A script that times `body` after `setup`, printing wall and CPU ms as JSON. */
function probe(setup, body) {
  return `${setup}
const c0 = process.cpuUsage(); const t0 = performance.now();
${body}
const cpu = process.cpuUsage(c0); const wall = performance.now() - t0;
console.log(JSON.stringify({ wall, cpu: (cpu.user + cpu.system) / 1000 }));`;
}

const cases = {
  "import catalog module (nothing read)": probe("", `await import(${JSON.stringify(catalog)});`),
  "first lookup (read + parse + index)": probe(
    `const { findModel } = await import(${JSON.stringify(catalog)});`,
    `findModel("gpt-4o-mini");`,
  ),
  "100 later lookups, known model": probe(
    `const { findModel } = await import(${JSON.stringify(catalog)}); findModel("gpt-4o-mini");`,
    `for (let i = 0; i < 100; i++) findModel("claude-sonnet-4-5-20250929");`,
  ),
  "first unknown model, every section": probe(
    `const { findModel } = await import(${JSON.stringify(catalog)}); findModel("gpt-4o-mini");`,
    `findModel("my-finetune-7b", { fallback: "any" });`,
  ),
};
if (process.env.PI_AI) {
  const entry = pathToFileURL(join(process.env.PI_AI, "dist/index.js")).href;
  cases["import @mariozechner/pi-ai"] = probe("", `await import(${JSON.stringify(entry)});`);
  cases["pi-ai getModel after import"] = probe(
    `const { getModel } = await import(${JSON.stringify(entry)});`,
    `getModel("openai", "gpt-4o-mini");`,
  );
}

const rows = [];
for (const [name, script] of Object.entries(cases)) {
  const walls = [];
  const cpus = [];
  for (let i = 0; i < RUNS; i++) {
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    const { wall, cpu } = JSON.parse(out.trim().split("\n").at(-1));
    walls.push(wall);
    cpus.push(cpu);
  }
  rows.push({
    case: name,
    "wall ms (median)": median(walls).toFixed(2),
    "CPU ms (median)": median(cpus).toFixed(2),
  });
}
table(rows);
