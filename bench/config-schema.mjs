// What checking config.json costs every command that reads it (relm run / -p among them): the schema
// module as esbuild bundles it (src/config/schema.ts with the parts of valibot it uses), imported into a
// fresh Node and run once on a typical config.json. Beside it, the same shape of schema written with
// zod/mini and with zod, the other well-kept validators that also give TypeScript types, bundled the
// same way; and an empty module, the floor. Wall and CPU time (steadier on a busy machine) of import plus
// one check, and the bundle's size; median of N runs. Needs `npm run build` first (dist/config/schema.js).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { median, ROOT, table } from "./lib.mjs";

const RUNS = Number(process.env.RUNS ?? 21);
const dir = mkdtempSync(join(tmpdir(), "relm-bench-schema-"));

const CONFIG = {
  stream: true,
  model: "qwen3",
  baseUrl: "http://localhost:11434/v1",
  retry: { baseMs: 5, maxMs: 50 },
  prices: { qwen3: { input: 0.1, output: 0.4 } },
  cellTimeoutSeconds: 120,
  learn: { every_turns: 10, budget: { share: 0.3 } },
};

const entries = {
  empty: `globalThis.checked = ${JSON.stringify(CONFIG)};`,
  valibot: `import { checkConfig, configFileSchema } from ${JSON.stringify(join(ROOT, "dist/config/schema.js"))};
globalThis.checked = checkConfig(configFileSchema, ${JSON.stringify(CONFIG)}, "config.json");`,
  "zod/mini": zodSchema("zod/mini"),
  zod: zodSchema("zod"),
};

/** The same keys and rules with zod (classic or mini), for comparison only. */
function zodSchema(from) {
  const mini = from === "zod/mini";
  const opt = (s) => (mini ? `z.optional(${s})` : `${s}.optional()`);
  const pos = mini ? "z.number().check(z.positive())" : "z.number().positive()";
  const nonneg = mini ? "z.number().check(z.nonnegative())" : "z.number().nonnegative()";
  const int = mini ? "z.int().check(z.minimum(1))" : "z.number().int().min(1)";
  const text = mini ? "z.string().check(z.minLength(1))" : "z.string().min(1)";
  const frac = mini ? "z.number().check(z.positive(), z.maximum(1))" : "z.number().positive().max(1)";
  return `import * as z from ${JSON.stringify(from)};
const price = z.strictObject({ input: ${nonneg}, output: ${nonneg}, cachedInput: ${opt(nonneg)}, cacheWrite: ${opt(nonneg)} });
const learn = z.strictObject({ enabled: ${opt("z.boolean()")}, every_turns: ${opt(`z.union([z.literal(false), ${int}])`)},
  at_compaction: ${opt("z.boolean()")}, on_gate_failure: ${opt(`z.union([z.boolean(), ${int}])`)},
  budget: ${opt(`z.union([${frac}, z.strictObject({ share: ${opt(frac)}, tokens: ${opt(int)}, cost: ${opt(pos)} })])`)},
  model: ${opt(text)} });
const schema = z.strictObject({ provider: ${opt('z.enum(["openai", "anthropic"])')}, baseUrl: ${opt(text)},
  apiKey: ${opt(text)}, model: ${opt(text)}, python: ${opt(text)}, prices: ${opt("z.record(z.string(), price)")},
  acceptsImages: ${opt("z.boolean()")}, stream: ${opt("z.boolean()")},
  retry: ${opt(`z.strictObject({ maxAttempts: ${opt(int)}, baseMs: ${opt(nonneg)}, maxMs: ${opt(nonneg)} })`)},
  requestIdleTimeout: ${opt(pos)}, cellTimeoutSeconds: ${opt(pos)}, outputCap: ${opt(int)}, idleTimeoutSeconds: ${opt(pos)},
  kernelIdleTimeoutSeconds: ${opt(pos)}, contextWindows: ${opt(`z.record(z.string(), ${int})`)}, compactAt: ${opt(frac)},
  refineModel: ${opt(text)}, learn: ${opt("learn")} });
globalThis.checked = schema.parse(${JSON.stringify(CONFIG)});`;
}

const PROBE = `
const cpu0 = process.cpuUsage(), t0 = performance.now();
await import(process.argv[1]);
const cpu = process.cpuUsage(cpu0);
if (!globalThis.checked) throw new Error("not checked");
console.log(JSON.stringify({ wall: performance.now() - t0, cpu: (cpu.user + cpu.system) / 1000 }));
`;

const files = {};
for (const [name, code] of Object.entries(entries)) {
  const source = join(dir, `${name.replace("/", "-")}.src.mjs`);
  writeFileSync(source, code);
  const outfile = join(dir, `${name.replace("/", "-")}.mjs`);
  // As scripts/bundle.mjs bundles the CLI (unminified, ESM, node20), resolving packages from the repo.
  await build({
    entryPoints: [source],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "warning",
    nodePaths: [join(ROOT, "node_modules")],
  });
  files[name] = outfile;
}

const rows = [];
for (const [name, file] of Object.entries(files)) {
  const runs = Array.from({ length: RUNS }, () =>
    JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", PROBE, file], { encoding: "utf8" }),
    ),
  );
  rows.push({
    validator: name,
    "bundle kB": (statSync(file).size / 1024).toFixed(1),
    "wall ms": median(runs.map((r) => r.wall)).toFixed(1),
    "CPU ms": median(runs.map((r) => r.cpu)).toFixed(1),
  });
}
rmSync(dir, { recursive: true, force: true });
console.log(`# config.json schema: import of the bundled check plus one check, median of ${RUNS} runs`);
table(rows);
