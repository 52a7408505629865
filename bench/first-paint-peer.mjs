// Issue 24, goal 7: relm's terminal UI against a peer's, first paint side by side in a pty, interleaved,
// at whatever load the machine has (state it). The peer is Codex by default, when installed:
//   npm i --prefix /tmp/codex @openai/codex   then   CODEX=/tmp/codex/node_modules/.bin/codex node bench/first-paint-peer.mjs
// First paint: spawn → relm's status line ("new session") / Codex's header ("OpenAI Codex") on screen.
// Codex is given a provider on 127.0.0.1 that nothing answers and a trusted directory, so that it opens
// straight to its prompt; relm a scripted model (neither makes a request before its first frame).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { median, ROOT, table } from "./lib.mjs";
import { rig as makeRig, RELM, startPty, stats, timeUntil } from "./tui-lib.mjs";

const RUNS = Number(process.env.RUNS ?? 10);
const codex = process.env.CODEX ?? "/tmp/codex/node_modules/.bin/codex";
if (!existsSync(codex)) {
  console.log(`no Codex at ${codex}: npm i --prefix /tmp/codex @openai/codex (or set CODEX=PATH)`);
  process.exit(0);
}
const scripted = await import(pathToFileURL(join(ROOT, "dist/scripted/index.js")).href);
const relmRig = await makeRig(scripted.startScriptedModel, [{ text: "unused" }]);
// Codex refuses helper binaries under /tmp for its home: one under $HOME, removed at the end.
const codexHome = mkdtempSync(join(process.env.HOME ?? tmpdir(), ".relm-bench-codex-"));
const codexCwd = mkdtempSync(join(tmpdir(), "relm-bench-codex-cwd-"));
mkdirSync(join(codexHome, ".codex"));
writeFileSync(
  join(codexHome, ".codex/config.toml"),
  [
    'model = "scripted"',
    'model_provider = "local"',
    "[model_providers.local]",
    'name = "local"',
    'base_url = "http://127.0.0.1:9/v1"',
    'env_key = "OPENAI_API_KEY"',
    'wire_api = "responses"',
    `[projects."${codexCwd}"]`,
    'trust_level = "trusted"',
    "",
  ].join("\n"),
);
const codexEnv = {
  PATH: process.env.PATH,
  HOME: codexHome,
  CODEX_HOME: join(codexHome, ".codex"),
  OPENAI_API_KEY: "sk-bench",
  TERM: "xterm-256color",
};

async function paint(command, env, cwd, text) {
  const start = performance.now();
  const p = startPty({ command, env, cwd, cols: 100, rows: 30 });
  const ms = await timeUntil(p, (t) => t.includes(text), start, 30_000);
  await p.close();
  return ms;
}

const times = { relm: [], codex: [] };
const loads = [];
try {
  for (let i = 0; i < RUNS + 1; i++) {
    const order = i % 2 === 0 ? ["relm", "codex"] : ["codex", "relm"];
    for (const who of order) {
      const ms =
        who === "relm"
          ? await paint([process.execPath, RELM], relmRig.env, relmRig.cwd, "new session")
          : await paint([codex], codexEnv, codexCwd, "OpenAI Codex");
      if (i > 0) times[who].push(ms); // the first round warms the page cache
    }
    loads.push(loadavg()[0]);
  }
} finally {
  await relmRig.close?.();
  rmSync(codexHome, { recursive: true, force: true });
  rmSync(codexCwd, { recursive: true, force: true });
}
const pairs = times.relm.map((r, i) => r / (times.codex[i] ?? Number.NaN));
console.log(`# first paint in a 100x30 pty, ${RUNS} launches of each, interleaved`);
table(
  ["relm", "codex"].map((who) => {
    const s = stats(times[who]);
    return { command: who, "p50 ms": s.p50, "p99 ms": s.p99, "max ms": s.max, n: s.n };
  }),
);
console.log(
  `relm / codex: ${(median(times.relm) / median(times.codex)).toFixed(2)} (pair ratios ${Math.min(...pairs).toFixed(2)}–${Math.max(...pairs).toFixed(2)}), load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on 2 cores`,
);
process.exit(0);
