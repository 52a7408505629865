// Screenshots for docs/tui.md, taken from a headless terminal: each scenario runs the built relm in a
// pseudo-terminal against the scripted model (no API key), sends keys, waits for text, and writes the
// screen as docs/screenshots/NAME.svg. It drives relm through the UI tests' own harness
// (test/support/pty.ts), so a screenshot shows exactly what a test would read.
//
//   npm run screenshots                   # all scenarios (builds first)
//   node scripts/screenshots.mjs turn     # only the named ones (after npm run build)
//
// Paths, sizes and the scripted model's replies are fixed, so a scenario draws the same picture each
// time except for what is measured live: session ids, elapsed times, the spinner's frame.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { LIGHT_THEME } from "./lib/screen-svg.mjs";
import { API_SERVICES, SHOP } from "./lib/screenshot-fixtures.mjs";

/** The turn has ended and the status line shows what it cost (the host's figures have come in). */
function spendShown(text) {
  // The first turn's own cost is the session's: the status line shows the same money, written the same.
  const spent = /✓ \d+ model calls? · [^\n]*\$([\d.]+)\n/.exec(text)?.[1];
  if (spent === undefined) return false;
  return new RegExp(`│ \\$${spent.replace(".", "\\.")} │[^\\n]*kernel idle`).test(text);
}

/**
 * The scenarios. Each: name, cols × rows, args (relm's arguments), title (of the window; default
 * "relm ARGS"), env (added to the environment; a function of { modelUrl, ollamaHost } may compute it;
 * null removes a variable), config (merged into config.json), serve (options of the scripted model
 * besides its script), model (its replies, see src/scripted/script.ts; or a function of byTask, the
 * router that gives each agent its own replies), files (created in the project directory first), git
 * (make the project a git repository on branch main), saved (sessions made first with `relm run TASK`,
 * then dated hoursAgo), steps, and quit (steps after the pictures, so relm can leave cleanly).
 * Steps: { type: "text" } | { press: "enter" } or { press: ["down", "enter"] } | { paste: "text" }
 * | { waitFor: "text", /regex/ or (screenText) => boolean, timeoutMs?, where?: "all" }
 * | { resize: [cols, rows] } | { snap: "NAME", title? } (a picture, docs/screenshots/NAME.svg).
 * A scenario without a snap step is pictured at the end of its steps, under its own name.
 */
const SCENARIOS = [
  {
    // First launch: no model configured, Ollama (the scripted model behind 127.0.0.1:11434) running.
    name: "first-launch",
    cols: 100,
    rows: 30,
    args: [],
    env: ({ ollamaHost }) => ({ RELM_MODEL: null, RELM_BASE_URL: null, OLLAMA_HOST: ollamaHost }),
    config: { prices: undefined },
    serve: { models: ["qwen3:8b", "gpt-oss:20b", "llama3.2:3b"] },
    steps: [
      { waitFor: "Choose a model provider" },
      { press: ["down", "down", "down"] },
      { waitFor: /→ Ollama/ },
      { snap: "first-launch" },
      { press: "enter" },
      { waitFor: "Ollama's address" },
      { press: "enter" },
      { waitFor: "Choose a model (3 at" },
      { snap: "first-launch-models" },
    ],
    quit: [{ press: "ctrl-c" }], // cancels: nothing is written
  },
  {
    // One turn: a cell whose output streams in (the test suite), then the answer as markdown.
    name: "turn",
    cols: 100,
    rows: 30,
    args: ["--max-cost", "2"],
    files: SHOP.files,
    git: true,
    serve: { chunkDelayMs: 8 },
    model: [{ text: "I'll run the test suite.", code: "!python3 -m unittest -v" }, { text: SHOP.answer }],
    steps: [
      { waitFor: "new session" },
      { type: "run the tests and tell me what fails" },
      { press: "enter" },
      { waitFor: /test_place_order .*\.\.\. ok/, timeoutMs: 30_000 },
      { snap: "turn-running" },
      { waitFor: spendShown, timeoutMs: 30_000 },
      // Taller, to show the whole turn: the cell's folded output above the answer.
      { resize: [100, 44] },
      { waitFor: "more lines · ctrl+o shows all" },
      { snap: "turn" },
    ],
    quit: [{ press: "ctrl-d" }],
  },
  {
    // The same turn in the light theme (/theme light, or a light terminal's background), on a light terminal.
    name: "turn-light",
    cols: 100,
    rows: 44,
    args: ["--max-cost", "2"],
    env: { RELM_THEME: "light" },
    svgTheme: "light",
    files: SHOP.files,
    git: true,
    serve: { chunkDelayMs: 8 },
    model: [{ text: "I'll run the test suite.", code: "!python3 -m unittest -v" }, { text: SHOP.answer }],
    steps: [
      { waitFor: "new session" },
      { type: "run the tests and tell me what fails" },
      { press: "enter" },
      { waitFor: spendShown, timeoutMs: 30_000 },
      { waitFor: "more lines · ctrl+o shows all" },
    ],
    quit: [{ press: "ctrl-d" }],
  },
  {
    // The agent's plan (plan() in the kernel) as a checklist above the input, while it works through it.
    name: "plan",
    cols: 100,
    rows: 32,
    args: ["--max-cost", "2"],
    files: SHOP.files,
    git: true,
    model: [
      {
        text: "A plan first, then the tests.",
        code:
          'plan(["run the test suite", "find why test_refund_keeps_cents fails", "fix refund()", "run the suite again"])\n' +
          "!python3 -m unittest 2>&1 | tail -3\n" +
          "plan(done=1, doing=2)",
      },
      {
        text: "One test fails, `test_refund_keeps_cents`: `refund()` cuts to cents with `int()`. Next I'll fix it.",
      },
    ],
    steps: [
      { waitFor: "new session" },
      { type: "fix the failing test, with a plan" },
      { press: "enter" },
      { waitFor: spendShown, timeoutMs: 30_000 },
      { waitFor: /Plan 1\/4/ },
    ],
    quit: [{ press: "ctrl-d" }],
  },
  {
    // rlm.map: three sub-agents, one per service, in the agent panel while they run; then /cost.
    name: "agents",
    cols: 100,
    rows: 30,
    args: [],
    files: API_SERVICES.files,
    git: true,
    serve: { chunkDelayMs: 4 },
    model: (byTask) => API_SERVICES.script(byTask),
    steps: [
      { waitFor: "new session" },
      { type: "run every service's tests in parallel, one sub-agent each" },
      { press: "enter" },
      // All three at work for a few seconds already.
      {
        waitFor: /auth running[^\n]* [3-9]\.\d s ·[\s\S]*billing running[\s\S]*search running/,
        timeoutMs: 30_000,
      },
      { snap: "agents" },
      // ctrl+t selects a child; enter opens its transcript over the session's (once auth has answered, so
      // the picture shows a whole one).
      { press: "ctrl-t" },
      { waitFor: "enter open" },
      { waitFor: /✓ auth done/, timeoutMs: 30_000 },
      { press: "enter" },
      { waitFor: "sub-agent auth (read-only)" },
      { waitFor: "4 tests, all pass" },
      { snap: "agent-transcript" },
      { press: "escape" },
      { press: "escape" },
      { waitFor: spendShown, timeoutMs: 60_000 },
      { type: "/cost" },
      { press: "enter" },
      { waitFor: "sub-agents (included above)" },
      { snap: "cost" },
    ],
    quit: [{ press: "escape" }, { press: "ctrl-d" }],
  },
  {
    // /help over an empty session.
    name: "help",
    cols: 100,
    rows: 30,
    args: [],
    steps: [{ waitFor: "new session" }, { type: "/help" }, { press: "enter" }, { waitFor: "Commands" }],
    // The pop-up closes before ctrl+d, which it would otherwise take.
    quit: [
      { press: "escape" },
      { waitFor: (text) => !text.includes("relm — commands and keys") },
      { press: "ctrl-d" },
    ],
  },
  {
    // relm --resume: this directory's saved sessions.
    name: "resume",
    cols: 100,
    rows: 30,
    args: ["--resume"],
    files: SHOP.files,
    git: true,
    // Only the sessions' titles and figures are in the picture, not these answers.
    model: [{ text: "Two places: `Cart.total()` and `refund()`." }, { text: "Done: `refund()` rounds now." }],
    saved: [
      { task: "where does the shop round money?", hoursAgo: 26 },
      { task: "make refund() keep the cents", hoursAgo: 3 },
    ],
    steps: [{ waitFor: "Resume a session of this directory" }, { waitFor: "make refund() keep the cents" }],
    quit: [{ press: "escape" }, { waitFor: "new session" }, { press: "ctrl-d" }],
  },
  {
    // Line mode: what a terminal that cannot draw the UI gets (here forced with RELM_NO_TUI=1).
    name: "line-mode",
    cols: 100,
    rows: 20,
    args: [],
    env: { RELM_NO_TUI: "1" },
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
];

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RELM = join(ROOT, "dist/cli/relm.cjs");
const OUT = join(ROOT, "docs/screenshots");
const WORK = join(tmpdir(), "relm-screenshots");
/** Made-up prices for the scripted model, so spend shows in dollars as it would for a real one. */
const PRICES = { scripted: { input: 3, output: 15, cachedInput: 0.3 } };

const run = (args, options) => promisify(execFile)(process.execPath, args, options);

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
  const cwd = join(base, "shop");
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const config = { stream: true, retry: { baseMs: 5, maxMs: 50 }, prices: PRICES, ...scenario.config };
  writeFileSync(join(home, "config.json"), JSON.stringify(config));
  for (const [path, text] of Object.entries(scenario.files ?? {})) {
    mkdirSync(dirname(join(cwd, path)), { recursive: true });
    writeFileSync(join(cwd, path), text);
  }
  if (scenario.git) execFileSync("git", ["init", "-q", "-b", "main"], { cwd });
  return { base, home, cwd };
}

/**
 * 127.0.0.1:11434 (Ollama's own port, so the picker shows what a user would see) forwarded to the
 * scripted model; another free port when 11434 is taken. Returns "host:port" and close().
 */
async function ollamaPort(target) {
  const { port: targetPort } = new URL(target);
  const server = createServer((socket) => {
    const upstream = connect(Number(targetPort), "127.0.0.1");
    socket.pipe(upstream).pipe(socket);
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => socket.destroy());
  });
  const listen = (port) =>
    new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve(server.address().port));
    });
  const port = await listen(11434).catch(() => listen(0));
  if (port !== 11434)
    console.warn("screenshots: port 11434 is taken; the first-launch picture shows another");
  return { host: `127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

function environment(scenario, dirs, model, ollamaHost) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(RELM_|OPENAI_|ANTHROPIC_|OPENROUTER_|OLLAMA_)/.test(k)),
  );
  Object.assign(env, {
    RELM_HOME: dirs.home,
    RELM_PROVIDER: "openai",
    RELM_BASE_URL: model.openaiBaseUrl,
    RELM_MODEL: "scripted",
  });
  const extra =
    typeof scenario.env === "function"
      ? scenario.env({ modelUrl: model.url, ollamaHost })
      : (scenario.env ?? {});
  for (const [k, v] of Object.entries(extra)) {
    if (v === null || v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Sessions made before the picture (relm run, no terminal), then dated back as if from earlier work. */
async function makeSaved(scenario, dirs, env) {
  if (!scenario.saved) return;
  // Not execFileSync: the scripted model answering these runs lives in this process's event loop.
  for (const { task } of scenario.saved) await run([RELM, "run", task], { cwd: dirs.cwd, env });
  const sessions = join(dirs.home, "sessions");
  for (const id of readdirSync(sessions)) {
    const file = join(sessions, id, "state.json");
    const state = JSON.parse(readFileSync(file, "utf8"));
    const saved = scenario.saved.find((s) => s.task === state.title);
    if (!saved) continue;
    const back = (iso) => new Date(Date.parse(iso) - saved.hoursAgo * 3_600_000).toISOString();
    const dated = { ...state, created: back(state.created), lastActivity: back(state.lastActivity) };
    writeFileSync(file, `${JSON.stringify(dated)}\n`);
  }
}

async function runStep(p, step, picture) {
  if ("type" in step) await p.type(step.type);
  else if ("press" in step) await p.press(...[step.press].flat());
  else if ("paste" in step) await p.paste(step.paste);
  else if ("waitFor" in step) await p.waitFor(step.waitFor, { timeoutMs: step.timeoutMs, where: step.where });
  else if ("resize" in step) p.resize(...step.resize);
  else if ("snap" in step) picture(step.snap, step.title);
  else throw new Error(`unknown step ${JSON.stringify(step)}`);
}

async function shoot(scenario, harness, { startScriptedModel, byTask }) {
  const dirs = prepareDirs(scenario);
  const script = typeof scenario.model === "function" ? scenario.model(byTask) : scenario.model;
  const model = await startScriptedModel({
    script: script ?? [{ text: "(no reply scripted)" }],
    ...scenario.serve,
  });
  const ollama = await ollamaPort(model.url);
  const env = environment(scenario, dirs, model, ollama.host);
  let p;
  try {
    await makeSaved(scenario, dirs, env);
    p = harness.startPty({
      command: [process.execPath, RELM],
      args: scenario.args,
      cwd: dirs.cwd,
      cols: scenario.cols,
      rows: scenario.rows,
      env,
    });
    const title = scenario.title ?? ["relm", ...scenario.args].join(" ");
    const picture = (name, t = title) => {
      const file = join(OUT, `${name}.svg`);
      const theme = scenario.svgTheme === "light" ? LIGHT_THEME : undefined;
      writeFileSync(file, p.svg({ title: t, ...(theme ? { theme } : {}) }));
      console.log(`${name}: ${file.slice(ROOT.length)}`);
    };
    for (const step of scenario.steps) await runStep(p, step, picture);
    if (!scenario.steps.some((s) => "snap" in s)) picture(scenario.name);
    for (const step of scenario.quit ?? []) await runStep(p, step, picture);
    if (scenario.quit) await p.waitForExit();
  } finally {
    await p?.close();
    // The UI leaves session hosts running in the background: stop them before their files go.
    await run([RELM, "shutdown"], { env, timeout: 30_000 }).catch(() => undefined);
    await ollama.close();
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
const scripted = await import(pathToFileURL(join(ROOT, "dist/scripted/index.js")).href);
mkdirSync(OUT, { recursive: true });
let failed = 0;
for (const scenario of SCENARIOS.filter((s) => wanted.length === 0 || wanted.includes(s.name))) {
  try {
    await shoot(scenario, harness, scripted);
  } catch (error) {
    failed++;
    console.error(`${scenario.name}: ${error instanceof Error ? error.message : error}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
