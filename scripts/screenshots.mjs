// Screenshots for docs/tui.md, taken from a headless terminal: each scenario runs the built relm in a
// pseudo-terminal against the scripted model (no API key), sends keys, waits for text, and writes the
// screen as docs/screenshots/NAME.svg. It drives relm through the UI tests' own harness
// (test/support/pty.ts), so a screenshot shows exactly what a test would read.
//
//   npm run screenshots                 # all scenarios (builds first)
//   node scripts/screenshots.mjs demo   # only the named ones (after npm run build)
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

/**
 * The scenarios. Each: name (the file name), cols × rows, args (relm's arguments), title (of the window;
 * default "relm ARGS"), env (added to the environment), model (the scripted model's replies: see src/llm/scripted/script.ts), files
 * (created in the project directory first), steps, and quit (steps after the picture, so relm can leave
 * cleanly). Steps: { type: "text" } | { press: "enter" } or { press: ["down", "enter"] } | { paste: "text" }
 * | { waitFor: "text" or /regex/, timeoutMs?, where?: "all" } | { resize: [cols, rows] }.
 * The two below are placeholders that work with line mode; the terminal UI's scenarios replace them.
 */
const SCENARIOS = [
  {
    name: "line-mode",
    cols: 100,
    rows: 20,
    args: [],
    env: { RELM_NO_TUI: "1" }, // line mode in a terminal
    model: [
      { text: "I'll compute it in the kernel.", code: "import math\nprint(math.factorial(20))" },
      { text: "20! = 2432902008176640000." },
    ],
    steps: [
      { waitFor: "/help for commands" },
      { type: "What is 20 factorial?" },
      { press: "enter" },
      { waitFor: "20! = 2432902008176640000." },
      { waitFor: /^›$/m }, // the prompt is back
    ],
    quit: [{ press: "ctrl-d" }],
  },
  {
    name: "demo",
    cols: 100,
    rows: 34,
    args: ["demo"],
    steps: [{ waitFor: "dry run: nothing was written", timeoutMs: 120_000 }],
  },
];

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(ROOT, "docs/screenshots");
const WORK = join(tmpdir(), "relm-screenshots");

/** test/support/pty.ts as a module Node can load (vitest's afterEach, used only by usePtys, is stubbed). */
async function loadHarness() {
  const outfile = join(ROOT, "node_modules/.cache/relm-screenshots/pty.mjs");
  await build({
    entryPoints: [join(ROOT, "test/support/pty.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "warning",
    plugins: [
      {
        name: "no-vitest",
        setup(b) {
          b.onResolve({ filter: /^vitest$/ }, () => ({ path: "vitest", namespace: "stub" }));
          b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
            contents: "export const afterEach = () => { throw new Error('usePtys() needs vitest'); };",
          }));
        },
      },
    ],
  });
  return import(pathToFileURL(outfile).href);
}

/** Fixed paths (not random temp names), so the same scenario draws the same picture every time. */
function prepareDirs(scenario) {
  const base = join(WORK, scenario.name);
  rmSync(base, { recursive: true, force: true });
  const home = join(base, "home");
  const cwd = join(base, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(home, "config.json"), JSON.stringify({ stream: true, retry: { baseMs: 5, maxMs: 50 } }));
  for (const [path, text] of Object.entries(scenario.files ?? {})) {
    mkdirSync(dirname(join(cwd, path)), { recursive: true });
    writeFileSync(join(cwd, path), text);
  }
  return { base, home, cwd };
}

async function runStep(p, step) {
  if ("type" in step) await p.type(step.type);
  else if ("press" in step) await p.press(...[step.press].flat());
  else if ("paste" in step) await p.paste(step.paste);
  else if ("waitFor" in step) await p.waitFor(step.waitFor, { timeoutMs: step.timeoutMs, where: step.where });
  else if ("resize" in step) p.resize(...step.resize);
  else throw new Error(`unknown step ${JSON.stringify(step)}`);
}

async function shoot(scenario, harness, startScriptedModel) {
  const dirs = prepareDirs(scenario);
  const model = await startScriptedModel({ script: scenario.model ?? [{ text: "(no reply scripted)" }] });
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(RELM_|OPENAI_|ANTHROPIC_)/.test(k)),
  );
  const p = harness.startPty({
    command: [process.execPath, join(ROOT, "dist/cli/main.js")],
    args: scenario.args,
    cwd: dirs.cwd,
    cols: scenario.cols,
    rows: scenario.rows,
    env: {
      ...env,
      RELM_HOME: dirs.home,
      RELM_PROVIDER: "openai",
      RELM_BASE_URL: model.openaiBaseUrl,
      RELM_MODEL: "scripted",
      ...scenario.env,
    },
  });
  try {
    for (const step of scenario.steps) await runStep(p, step);
    const file = join(OUT, `${scenario.name}.svg`);
    writeFileSync(file, p.svg({ title: scenario.title ?? ["relm", ...scenario.args].join(" ") }));
    console.log(`${scenario.name}: ${file.slice(ROOT.length)}`);
    for (const step of scenario.quit ?? []) await runStep(p, step);
    if (scenario.quit) await p.waitForExit();
  } finally {
    await p.close();
    await model.close();
    rmSync(dirs.base, { recursive: true, force: true });
  }
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !SCENARIOS.some((s) => s.name === name));
if (unknown.length > 0) {
  console.error(
    `screenshots: no scenario ${unknown.join(", ")} (have: ${SCENARIOS.map((s) => s.name).join(", ")})`,
  );
  process.exit(2);
}
const harness = await loadHarness();
const { startScriptedModel } = await import(pathToFileURL(join(ROOT, "dist/llm/scripted/index.js")).href);
mkdirSync(OUT, { recursive: true });
let failed = 0;
for (const scenario of SCENARIOS.filter((s) => wanted.length === 0 || wanted.includes(s.name))) {
  try {
    await shoot(scenario, harness, startScriptedModel);
  } catch (error) {
    failed++;
    console.error(`${scenario.name}: ${error instanceof Error ? error.message : error}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
