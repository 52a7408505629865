// Regenerates src/llm/catalog/models.json, relm's model catalog (context windows, output limits, prices,
// capabilities), from the models.dev-derived registry that ships in @mariozechner/pi-ai.
//
//   node scripts/catalog.mjs                 # the version pinned below, fetched with `npm pack`
//   node scripts/catalog.mjs --from DIR      # an unpacked package (DIR/dist/models.generated.js)
//   node scripts/catalog.mjs --version X.Y.Z # another release
//
// Only the generator needs the package (and the npm registry): the generated JSON is committed, the
// build copies it into dist/, and relm reads it lazily at run time. relm never loads pi-ai itself.
// docs/dependencies.md says why this source and not another; docs/providers.md how lookups work.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const PACKAGE = "@mariozechner/pi-ai";
const PINNED = "0.73.1";

/**
 * Catalog sections relm keeps, by relm's name, from the registry's provider names: the providers relm
 * has presets for, plus the subscription endpoints. Everything else (Bedrock, gateways, regional
 * duplicates) is left out to keep the file small.
 */
const SECTIONS = {
  openai: "openai",
  anthropic: "anthropic",
  google: "google",
  openrouter: "openrouter",
  groq: "groq",
  deepseek: "deepseek",
  mistral: "mistral",
  xai: "xai",
  fireworks: "fireworks",
  cerebras: "cerebras",
  azure: "azure-openai-responses",
  "openai-codex": "openai-codex",
  "github-copilot": "github-copilot",
  moonshotai: "moonshotai",
  zai: "zai",
  huggingface: "huggingface",
};

/**
 * Prompt-token limits below the context window. OpenAI documents GPT-5's 400 000-token window as
 * 272 000 input + 128 000 output; the registry carries only the total, and compaction must start
 * before the input limit, not the total. Matched on the id's start.
 */
const INPUT_LIMITS = [[/^(openai\/)?gpt-5/, 272_000]];

function parseArgs(argv) {
  const args = { version: PINNED, from: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--from") args.from = argv[++i];
    else if (argv[i] === "--version") args.version = argv[++i];
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return args;
}

/** Unpacks the package into a temporary directory with `npm pack`; its dependencies are not needed. */
function fetchPackage(version) {
  const dir = mkdtempSync(join(tmpdir(), "relm-catalog-"));
  execFileSync("npm", ["pack", `${PACKAGE}@${version}`, "--silent"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack ${PACKAGE}@${version} produced no tarball`);
  execFileSync("tar", ["xzf", tarball], { cwd: dir });
  return { dir: join(dir, "package"), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** USD per million tokens, rounded to what a price list states (no float noise in the file). */
function usd(value) {
  return typeof value === "number" && Number.isFinite(value) && value >= 0
    ? Math.round(value * 1e6) / 1e6
    : null;
}

/**
 * One model as relm keeps it: [context, maxOutput, input, output, cacheRead, cacheWrite, flags, inputLimit?].
 * flags: 1 tools, 2 images, 4 reasoning. A cache price of 0 where the input price is not 0 means the
 * registry does not know it: null (priced at the input rate), never free.
 */
function compact(id, model) {
  const cost = model.cost ?? {};
  const input = usd(cost.input);
  const output = usd(cost.output);
  const priced = input !== null && output !== null;
  const cacheRead =
    priced && usd(cost.cacheRead) !== null && (cost.cacheRead > 0 || input === 0)
      ? usd(cost.cacheRead)
      : null;
  const cacheWrite =
    priced && usd(cost.cacheWrite) !== null && (cost.cacheWrite > 0 || input === 0)
      ? usd(cost.cacheWrite)
      : null;
  // The registry lists models for an agent that calls tools; relm records that as a capability.
  const flags = 1 | ((model.input ?? []).includes("image") ? 2 : 0) | (model.reasoning ? 4 : 0);
  const row = [
    model.contextWindow > 0 ? model.contextWindow : null,
    model.maxTokens > 0 ? model.maxTokens : null,
    priced ? input : null,
    priced ? output : null,
    cacheRead,
    cacheWrite,
    flags,
  ];
  const limit = INPUT_LIMITS.find(([pattern]) => pattern.test(id));
  if (limit && row[0] !== null && limit[1] < row[0]) row.push(limit[1]);
  return row;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const pkg = args.from ? { dir: args.from, cleanup: () => {} } : fetchPackage(args.version);
  try {
    const { MODELS } = await import(pathToFileURL(join(pkg.dir, "dist/models.generated.js")).href);
    const providers = {};
    let count = 0;
    for (const [name, source] of Object.entries(SECTIONS)) {
      const models = MODELS[source];
      if (!models) throw new Error(`${PACKAGE} has no provider "${source}" any more: update SECTIONS`);
      const section = {};
      for (const id of Object.keys(models).sort()) {
        section[id] = compact(id, models[id]);
        count++;
      }
      providers[name] = section;
    }
    const version = args.from ? "unpacked" : args.version;
    const catalog = {
      source: `${PACKAGE}@${version} (models.dev data)`,
      generated: new Date().toISOString().slice(0, 10),
      fields: ["context", "maxOutput", "input", "output", "cacheRead", "cacheWrite", "flags", "inputLimit"],
      providers,
    };
    // One model per line: small, and a refresh shows as a readable diff.
    const lines = [];
    for (const [name, section] of Object.entries(providers)) {
      const rows = Object.entries(section).map(
        ([id, row]) => `    ${JSON.stringify(id)}: ${JSON.stringify(row)}`,
      );
      lines.push(`  ${JSON.stringify(name)}: {\n${rows.join(",\n")}\n  }`);
    }
    const head = JSON.stringify({
      source: catalog.source,
      generated: catalog.generated,
      fields: catalog.fields,
    });
    const text = `${head.slice(0, -1)},\n"providers": {\n${lines.join(",\n")}\n}}\n`;
    JSON.parse(text); // what relm will read must parse
    const target = new URL("../src/llm/catalog/models.json", import.meta.url);
    writeFileSync(target, text);
    process.stdout.write(
      `${count} models in ${Object.keys(providers).length} sections -> ${target.pathname} (${text.length} bytes)\n`,
    );
  } finally {
    pkg.cleanup();
  }
}

await main();
