// Helpers for bench/tui.mjs: the UI tests' pty harness loaded from a .mjs script, a scripted-model rig,
// and what is measured from outside the UI process: frames in the pty's byte stream, keystroke-to-echo
// times read through the emulator, CPU and memory from /proc, and frame times from a V8 CPU profile.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { median, quantile, ROOT } from "./lib.mjs";

export const RELM = join(ROOT, "dist/cli/relm.cjs");
const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
/** pi-tui ends every frame it draws with this (end of synchronized output). */
const FRAME_END = "\x1b[?2026l";

// RELM_BENCH_CPU_PROF=DIR: each UI the rigs open writes a V8 CPU profile there when it exits, for finding
// where a missed target's time goes (the figures are then those of a profiled UI).
const PROFILE = process.env.RELM_BENCH_CPU_PROF
  ? ["--cpu-prof", `--cpu-prof-dir=${process.env.RELM_BENCH_CPU_PROF}`, "--cpu-prof-interval=250"]
  : [];

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const f1 = (n) => n.toFixed(1);

/** p50 / p99 / max of a list of milliseconds, and how many there were. */
export function stats(values) {
  if (values.length === 0) return { p50: "-", p99: "-", max: "-", n: 0 };
  return {
    p50: f1(median(values)),
    p99: f1(quantile(values, 0.99)),
    max: f1(Math.max(...values)),
    n: values.length,
  };
}

/** test/support/pty.ts as a module Node can load (as scripts/screenshots.mjs does; vitest is stubbed). */
export async function loadHarness() {
  const outfile = join(ROOT, "node_modules/.cache/relm-bench/pty.mjs");
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
            contents: "export const afterEach = () => {};",
          }));
        },
      },
    ],
  });
  return import(pathToFileURL(outfile).href);
}

const { startPty } = await loadHarness();

export { startPty };

/**
 * A scripted model, a private RELM_HOME and project directory, and the environment pointing relm at
 * them. open() starts `relm ARGS` in a 120x40 pty (with `nodeArgs` for Node, e.g. --cpu-prof); close()
 * ends every pty, shuts down every session host of the home and removes the directories.
 */
export async function rig(startScriptedModel, script, options = {}) {
  const model = await startScriptedModel({ script, ...options });
  const home = mkdtempSync(join(tmpdir(), "relm-bench-tui-home-"));
  const cwd = mkdtempSync(join(tmpdir(), "relm-bench-tui-cwd-"));
  writeFileSync(join(home, "config.json"), JSON.stringify({ stream: true, retry: { baseMs: 5, maxMs: 50 } }));
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(RELM_|OPENAI_|ANTHROPIC_)/.test(k)),
  );
  Object.assign(env, {
    RELM_HOME: home,
    RELM_PROVIDER: "openai",
    RELM_BASE_URL: model.openaiBaseUrl,
    RELM_MODEL: "scripted",
  });
  const ptys = [];
  return {
    model,
    home,
    cwd,
    env,
    open(args = [], { nodeArgs = PROFILE, ...size } = {}) {
      const command = [process.execPath, ...nodeArgs, RELM];
      const p = startPty({ command, args, cwd, env, cols: 120, rows: 40, ...size });
      ptys.push(p);
      return p;
    },
    async close() {
      await Promise.all(ptys.map((p) => p.close()));
      // Session hosts the UI started are detached and outlive it. Async: the model serves this process.
      await new Promise((resolve) =>
        execFile(process.execPath, [RELM, "shutdown"], { env, cwd }, () => resolve()),
      );
      await model.close();
      rmSync(home, { recursive: true, force: true });
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

/** The pty's writes as they arrive: when each frame ended (its last byte arrived) and its size. */
export function watchFrames(p) {
  const frames = [];
  let bytes = 0;
  let tail = "";
  const sub = p.proc.onData((data) => {
    const at = performance.now();
    bytes += data.length;
    const ends = (tail + data).split(FRAME_END).length - 1;
    for (let i = 0; i < ends; i++) {
      frames.push({ at, bytes });
      bytes = 0;
    }
    tail = data.slice(-(FRAME_END.length - 1));
  });
  return { frames, stop: () => sub.dispose() };
}

/** Frames per second, mean size and the intervals between frames that ended between two times. */
export function cadence(frames, from, to) {
  const inside = frames.filter((f) => f.at >= from && f.at <= to);
  return {
    perSecond: inside.length / ((to - from) / 1000),
    meanBytes: Math.round(inside.reduce((n, f) => n + f.bytes, 0) / Math.max(1, inside.length)),
    gaps: inside.slice(1).map((f, i) => f.at - inside[i].at),
  };
}

/**
 * The time from `start` until `test(screen text)` holds, checked after each write the emulator has
 * parsed, never in the middle of a frame (synchronized output).
 */
export function timeUntil(p, test, start = performance.now(), timeoutMs = 20_000) {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (p.term.modes.synchronizedOutputMode) return;
      if (!test(p.screenText())) return;
      sub.dispose();
      clearTimeout(timer);
      resolve(performance.now() - start);
    };
    const sub = p.term.onWriteParsed(check);
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for the screen\n${p.dump()}`));
    }, timeoutMs);
    check();
  });
}

/**
 * Resolves with the time and match when `pattern` first shows up in the pty's output (for text that may
 * scroll off before a screen check sees it).
 */
export function arrival(p, pattern, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    let seen = "";
    const sub = p.proc.onData((data) => {
      seen = (seen + data).slice(-8192);
      const match = pattern.exec(seen);
      if (!match) return;
      sub.dispose();
      clearTimeout(timer);
      resolve({ at: performance.now(), match });
    });
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`${pattern} did not arrive\n${p.dump()}`));
    }, timeoutMs);
  });
}

/** Writes `key` to the pty and returns the time until the screen passes `test`. */
function keyToScreen(p, key, test) {
  const start = performance.now();
  const shown = timeUntil(p, test, start, 5000);
  p.proc.write(key);
  return shown;
}

/**
 * The input line: the text between the last two horizontal rules on screen, where the editor draws.
 * Keys are checked there, not anywhere on screen: a letter typed can also be in a session id.
 */
export function inputLine(text) {
  const lines = text.split("\n");
  const rules = [];
  lines.forEach((line, i) => {
    if (line.startsWith("──")) rules.push(i);
  });
  if (rules.length < 2) return "";
  const [above, below] = rules.slice(-2);
  return lines
    .slice(above + 1, below)
    .map((l) => l.trim())
    .join("");
}

/**
 * Types one character at a time, 30–90 ms apart (like a person, so keys land at every point of the
 * render cycle), until `until()` says stop, clearing the input (ctrl+u) every 40 characters. Returns, for
 * each key, the time from writing it to the pty until the input line shows it, and how long before the
 * key the last frame ended (from `frames`, if given).
 */
export async function typeAndTime(p, until, frames = []) {
  const letters = "qzxjkvw";
  const keys = [];
  let typed = "";
  while (!until()) {
    const want = `${typed}${letters[typed.length % letters.length]}`;
    const lastFrame = frames.at(-1)?.at ?? Number.NEGATIVE_INFINITY;
    const sinceFrame = performance.now() - lastFrame;
    keys.push({ ms: await keyToScreen(p, want.at(-1), (text) => inputLine(text) === want), sinceFrame });
    typed = want;
    if (typed.length >= 40) {
      await keyToScreen(p, "\x15", (text) => inputLine(text) === "");
      typed = "";
    }
    await sleep(30 + Math.random() * 60);
  }
  if (typed) await keyToScreen(p, "\x15", (text) => inputLine(text) === "");
  return keys;
}

/** CPU time (ms, user + system) and resident memory (KB) of one process, from /proc. */
function procSample(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  return { at: performance.now(), cpuMs, rssKb };
}

/** Samples a process every 200 ms until stopped; between(from, to) summarises a stretch of it. */
export function sampleProcess(pid) {
  const samples = [procSample(pid)];
  const timer = setInterval(() => {
    try {
      samples.push(procSample(pid));
    } catch {
      clearInterval(timer); // the process has exited: the caller reports why
    }
  }, 200);
  return {
    stop: () => clearInterval(timer),
    /** Mean % of one core, the busiest second, and peak RSS (MB) from `from` to `to`. */
    between(from, to) {
      const inside = samples.filter((s) => s.at >= from - 200 && s.at <= to + 200);
      const first = inside[0];
      const last = inside.at(-1);
      const pct = (a, b) => (100 * (b.cpuMs - a.cpuMs)) / (b.at - a.at);
      let busiest = pct(first, last);
      for (const a of inside) {
        const b = inside.find((s) => s.at >= a.at + 1000);
        if (b) busiest = Math.max(busiest, pct(a, b));
      }
      return {
        seconds: (last.at - first.at) / 1000,
        cpu: pct(first, last),
        busiest,
        peakRssMb: Math.max(...inside.map((s) => s.rssKb)) / 1024,
      };
    },
  };
}

/**
 * Frame times from a V8 CPU profile of the UI (node --cpu-prof): each frame is one call of pi-tui's
 * TUI.doRender, so a run of consecutive samples inside it (garbage collection included) is one frame.
 * Returns [{ startMs, ms }] with startMs counted from the start of the profile.
 */
export function profiledFrames(file) {
  const prof = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const inRender = new Set();
  const mark = (node, inside) => {
    const now = inside || node.callFrame.functionName === "doRender";
    if (now) inRender.add(node.id);
    for (const child of node.children ?? []) mark(byId.get(child), now);
  };
  mark(prof.nodes[0], false);
  const gc = new Set(
    prof.nodes
      .filter((n) => ["(garbage collector)", "(program)"].includes(n.callFrame.functionName))
      .map((n) => n.id),
  );
  const frames = [];
  let t = 0;
  let current;
  prof.samples.forEach((id, i) => {
    const dt = prof.timeDeltas[i] ?? 0;
    t += dt;
    if (inRender.has(id)) {
      if (!current) current = { startMs: (t - dt) / 1000, ms: 0 };
      current.ms += dt / 1000;
    } else if (current && gc.has(id)) current.ms += dt / 1000;
    else if (current) {
      frames.push(current);
      current = undefined;
    }
  });
  if (current) frames.push(current);
  return frames;
}
