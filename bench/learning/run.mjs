#!/usr/bin/env node
// The learning benchmark (docs/learning.md): trap families whose convention only a failing gate reveals,
// run through the built relm binary under four conditions, against the scripted learner or a real
// endpoint. Not part of `npm run bench` (a full run takes long): run it by name.
//
//   node bench/learning/run.mjs                                  # scripted, 3 families, seed 1
//   node bench/learning/run.mjs --families 30 --seeds 3 --jobs 2 # the full scripted table
//   node bench/learning/run.mjs --endpoint https://api.openai.com/v1 --model gpt-5-mini --key-env OPENAI_API_KEY
//   node bench/learning/run.mjs --self-check                     # the families' own data, no relm
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CONDITIONS, INJECT, runTrack } from "./conditions.mjs";
import { summarize } from "./metrics.mjs";
import { FAMILIES, makeProject } from "./project.mjs";
import { markdown } from "./report.mjs";
import { checkProject, resolvePython } from "./selfcheck.mjs";
import { RELM, ROOT } from "./session.mjs";

const USAGE = `usage: node bench/learning/run.mjs [--model scripted | --endpoint URL --model NAME [--key-env VAR] [--provider P]]
       [--families N | --only ID,ID] [--seed S] [--seeds K] [--conditions none,learn,refine,expert,inject]
       [--jobs J] [--turns T] [--gate-failures G] [--max-time D] [--stubborn R] [--doubt B]
       [--resamples B] [--out DIR] [--keep] [--self-check]`;

const { values: a } = parseArgs({
  options: {
    model: { type: "string", default: "scripted" },
    endpoint: { type: "string" },
    "key-env": { type: "string" },
    provider: { type: "string", default: "openai" },
    families: { type: "string", default: "3" },
    only: { type: "string" },
    seed: { type: "string", default: "1" },
    seeds: { type: "string", default: "1" },
    conditions: { type: "string", default: "none,learn,refine,expert,inject" },
    jobs: { type: "string", default: "1" },
    turns: { type: "string", default: "30" },
    "gate-failures": { type: "string", default: "10" },
    "max-time": { type: "string" },
    stubborn: { type: "string", default: "3" },
    doubt: { type: "string", default: "3" },
    resamples: { type: "string", default: "2000" },
    out: { type: "string" },
    keep: { type: "boolean", default: false },
    "self-check": { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (a.help) {
  console.log(USAGE);
  process.exit(0);
}
const whole = (name, min = 1) => {
  const n = Number(a[name]);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be a whole number of at least ${min}\n${USAGE}`);
    process.exit(2);
  }
  return n;
};

const scripted = !a.endpoint;
if (!scripted && a.model === "scripted") {
  console.error(`--endpoint needs --model NAME (the model at that endpoint)\n${USAGE}`);
  process.exit(2);
}
if (a["key-env"] && process.env[a["key-env"]] === undefined) {
  console.error(`--key-env ${a["key-env"]}: that variable is not set`);
  process.exit(2);
}
const families = a.only
  ? a.only.split(",").map((id) => {
      const f = FAMILIES.find((x) => x.id === id.trim());
      if (!f) {
        console.error(`--only: no family "${id}"; families: ${FAMILIES.map((x) => x.id).join(", ")}`);
        process.exit(2);
      }
      return f;
    })
  : FAMILIES.slice(0, Math.min(whole("families"), FAMILIES.length));
const seeds = Array.from({ length: whole("seeds") }, (_, k) => whole("seed", 0) + k);
const conditions = a.conditions
  .split(",")
  .flatMap((c) => (c.trim() === "inject" ? INJECT : [c.trim()]))
  .filter(Boolean);
for (const c of conditions) {
  if (![...CONDITIONS, ...INJECT].includes(c)) {
    console.error(`--conditions: unknown "${c}"; conditions: ${[...CONDITIONS, "inject"].join(", ")}`);
    process.exit(2);
  }
}
const python = resolvePython();

if (a["self-check"]) {
  let problems = 0;
  for (const seed of seeds) {
    for (const f of families) {
      const found = checkProject(f, seed, FAMILIES.indexOf(f), python);
      problems += found.length;
      console.log(`${f.id} seed ${seed}: ${found.length === 0 ? "ok" : found.join("\n  ")}`);
    }
  }
  process.exit(problems === 0 ? 0 : 1);
}
if (!existsSync(RELM)) {
  console.error(`${RELM} is missing: run \`npm run build\` first`);
  process.exit(2);
}

const started = Date.now();
const out = a.out ?? mkdtempSync(join(tmpdir(), "relm-learning-results-"));
mkdirSync(out, { recursive: true });
const root = mkdtempSync(join(tmpdir(), "relm-learning-"));
const tasks = new Map();
let server;
if (scripted) {
  const { startScriptedModel } = await import("../../dist/scripted/index.js");
  const { makeLearner } = await import("./learner.mjs");
  server = await startScriptedModel({
    script: makeLearner({ tasks, stubborn: whole("stubborn"), doubt: whole("doubt", 0) }),
  });
}

const modelFor = (name) =>
  scripted
    ? { name, env: { RELM_PROVIDER: "openai", RELM_BASE_URL: server.openaiBaseUrl, RELM_MODEL: name } }
    : {
        name: a.model,
        env: {
          RELM_PROVIDER: a.provider,
          RELM_BASE_URL: a.endpoint,
          RELM_MODEL: a.model,
          ...(a["key-env"] ? { RELM_API_KEY: process.env[a["key-env"]] } : {}),
        },
      };

const jobs = seeds.flatMap((seed) =>
  families.flatMap((family) => {
    const project = makeProject(family, seed, FAMILIES.indexOf(family));
    return conditions.map((condition) => ({ project, condition }));
  }),
);
const tracks = [];
const failures = [];
let next = 0;
const worker = async () => {
  while (next < jobs.length) {
    const { project, condition } = jobs[next++];
    const name = `bench-${project.family.id}-s${project.seed}-${condition}`;
    try {
      const track = await runTrack({
        project,
        condition,
        root,
        python,
        model: modelFor(name),
        budget: { turns: whole("turns"), gateFailures: whole("gate-failures"), time: a["max-time"] },
        tasks: scripted ? tasks : undefined,
        requests: server?.requests,
        log: (line) => console.error(line),
      });
      tracks.push(track);
      if (!a.keep) rmSync(track.dir, { recursive: true, force: true });
    } catch (error) {
      failures.push(`${name}: ${error.message}`);
      console.error(`${name} failed: ${error.message}`);
    }
    tasks.delete(name);
  }
};
try {
  await Promise.all(Array.from({ length: whole("jobs") }, worker));
} finally {
  await server?.close();
}
if (!a.keep) rmSync(root, { recursive: true, force: true });

const resamples = whole("resamples");
const summary = summarize(tracks, { resamples });
let commit = "";
try {
  commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
} catch {
  // not a git checkout
}
const meta = {
  command: `node bench/learning/run.mjs ${process.argv.slice(2).join(" ")}`.trim(),
  model: scripted ? "scripted learner" : `${a.model} at ${a.endpoint}`,
  scripted,
  stubborn: whole("stubborn"),
  doubt: whole("doubt", 0),
  families: families.length,
  seeds,
  conditions,
  budget: { turns: whole("turns"), gateFailures: whole("gate-failures"), time: a["max-time"] },
  resamples,
  commit,
  node: process.version,
  python,
  elapsedMs: Date.now() - started,
  failures,
  problems: server?.problems ?? [],
};
const text = markdown(summary, meta);
writeFileSync(
  join(out, "results.json"),
  `${JSON.stringify({ meta, summary: { ...summary, rows: summary.rows }, tracks }, null, 1)}\n`,
);
writeFileSync(join(out, "results.md"), text);
console.log(text);
console.log(
  `results: ${join(out, "results.json")} and results.md${a.keep ? `; projects and homes kept under ${root}` : ""}`,
);
if (failures.length || meta.problems.length) {
  console.error(`${failures.length} track(s) failed; scripted model problems: ${meta.problems.length}`);
  process.exitCode = 1;
}
