// The terminal UI (issue 9, "Speed and size"): the built relm in a pseudo-terminal, read through the UI
// tests' own harness (test/support/pty.ts: node-pty + @xterm/headless), against the scripted model on
// 127.0.0.1 with real kernels. Helpers are in bench/tui-lib.mjs.
//  1. launch to first paint (the status line on screen), beside `node -e` spawned the same way, and the
//     modules each command loads;
//  2. keystroke to echo in the input line while rlm.map's 8 children each print a line every 20 ms;
//  3. CPU and RSS of the UI process (the pty's child, not the session host) while ~200 tokens/s of
//     markdown stream in, and while a cell prints 5 MB;
//  4. a 2,000-event transcript: opening it, keystroke to echo, frame cadence while a cell streams into
//     it, and frame times from a CPU profile of the same steps.
// Frames are seen from outside: pi-tui wraps each frame in \x1b[?2026h … \x1b[?2026l (synchronized
// output), so when each frame reached the terminal, and its size, is in the pty's byte stream.
//
//   node bench/tui.mjs [launch] [keys] [stream] [transcript]     (after npm run build)
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { median, ROOT, table } from "./lib.mjs";
import {
  arrival,
  cadence,
  f1,
  rig as makeRig,
  profiledFrames,
  RELM,
  sampleProcess,
  sleep,
  startPty,
  stats,
  timeUntil,
  typeAndTime,
  watchFrames,
} from "./tui-lib.mjs";

const LAUNCHES = Number(process.env.RUNS ?? 20);
const scripted = await import(pathToFileURL(join(ROOT, "dist/scripted/index.js")).href);
const rig = (script, options) => makeRig(scripted.startScriptedModel, script, options);

// --- 1. launch to first paint ---------------------------------------------------------------------

/** A module-loading hook that logs every file Node loads (with its size) to $RELM_BENCH_LOAD_LOG. */
function loadLogger(dir) {
  const hook = join(dir, "hook.mjs");
  writeFileSync(
    hook,
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  const result = await next(url, context);
  appendFileSync(process.env.RELM_BENCH_LOAD_LOG, \`\${url} \${result.source?.length ?? 0}\\n\`);
  return result;
}`,
  );
  const register = join(dir, "register.mjs");
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hook).href)});`,
  );
  return register;
}

function loaded(log) {
  const files = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => l.split(" "))
    .filter(([url]) => url.startsWith("file:"))
    .map(([url, size]) => ({
      file: url.slice(pathToFileURL(ROOT).href.length),
      kb: Number(size) / 1024,
    }));
  return { files, kb: files.reduce((n, f) => n + f.kb, 0) };
}

async function launch() {
  const r = await rig([{ text: "unused" }]);
  const times = { exit: [], output: [], relm: [] };
  const cpu = { output: [], relm: [] };
  const dir = mkdtempSync(join(tmpdir(), "relm-bench-tui-loads-"));
  try {
    // Wall time from the spawn, and (when the text shows) the main thread's time on a CPU and waiting for
    // one so far, from /proc/PID/schedstat: the first does not depend on how busy the machine is.
    const spawnTimed = async (command, test) => {
      const start = performance.now();
      const p = startPty({ command, env: r.env, cwd: r.cwd, cols: 100, rows: 30 });
      if (!test) {
        await p.exited;
        const ms = performance.now() - start;
        await p.close();
        return { ms };
      }
      const ms = await timeUntil(p, test, start);
      const [run, wait] = readFileSync(`/proc/${p.pid}/schedstat`, "utf8").split(" ").map(Number);
      await p.close();
      return { ms, cpu: { run: run / 1e6, wait: wait / 1e6 } };
    };
    for (let i = 0; i < LAUNCHES + 2; i++) {
      const exit = await spawnTimed([process.execPath, "-e", "0"]);
      // It stays until closed, so that /proc still has it when its output shows.
      const script = "process.stdout.write('node ready'); setTimeout(() => {}, 10_000)";
      const output = await spawnTimed([process.execPath, "-e", script], (t) => t.includes("node ready"));
      const relm = await spawnTimed([process.execPath, RELM], (t) => t.includes("new session"));
      if (i < 2) continue; // the first launches warm the page cache
      times.exit.push(exit.ms);
      times.output.push(output.ms);
      times.relm.push(relm.ms);
      cpu.output.push(output.cpu);
      cpu.relm.push(relm.cpu);
    }
    // Which files each command loads (the UI is a chunk of the bundle that only the UI imports).
    const register = loadLogger(dir);
    const env = { ...r.env, RELM_BENCH_LOAD_LOG: join(dir, "version.log") };
    await promisify(execFile)(process.execPath, ["--import", register, RELM, "--version"], { env });
    const version = loaded(env.RELM_BENCH_LOAD_LOG);
    const uiEnv = { ...r.env, RELM_BENCH_LOAD_LOG: join(dir, "ui.log") };
    const p = startPty({ command: [process.execPath, "--import", register, RELM], env: uiEnv, cwd: r.cwd });
    await timeUntil(p, (t) => t.includes("new session"));
    await p.close();
    const ui = loaded(uiEnv.RELM_BENCH_LOAD_LOG);
    const onCpu = (list) => ({
      "on CPU p50": f1(median(list.map((c) => c.run))),
      "waiting for a CPU p50": f1(median(list.map((c) => c.wait))),
    });
    console.log(`# launch to first paint in a 100x30 pty, ms (${LAUNCHES} launches of each, interleaved)`);
    table([
      {
        command: "node -e 0, until it has exited",
        ...stats(times.exit),
        "on CPU p50": "",
        "waiting for a CPU p50": "",
      },
      {
        command: 'node -e "process.stdout.write(...)", until on screen',
        ...stats(times.output),
        ...onCpu(cpu.output),
      },
      {
        command: "relm (model configured), until its status line is on screen",
        ...stats(times.relm),
        ...onCpu(cpu.relm),
      },
    ]);
    const gap = median(times.relm) - median(times.output);
    const cpuGap = median(cpu.relm.map((c) => c.run)) - median(cpu.output.map((c) => c.run));
    console.log(
      `relm first paint - node first output (medians): ${f1(gap)} ms wall, ${f1(cpuGap)} ms on a CPU (main thread); goal: within 150 ms`,
    );
    console.log(
      `relm --version loads ${version.files.length} files, ${f1(version.kb)} KB: ${version.files.map((f) => f.file).join(", ")}`,
    );
    const big = [...ui.files].sort((a, b) => b.kb - a.kb).slice(0, 3);
    console.log(
      `relm (the UI) loads ${ui.files.length} files, ${f1(ui.kb)} KB, largest ${big.map((f) => `${f.file} ${f1(f.kb)} KB`).join(", ")}\n`,
    );
  } finally {
    await r.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- 2. keystroke to echo while 8 children stream -----------------------------------------------------

const FAN_OUT = `r = rlm.map("stream numbered lines", list(range(8)))\nprint(len(r), "children done")`;
// One line every 20 ms for about 20 s.
const CHILD = `import time\nfor i in range(1000):\n    print(f"child {item} line {i}", flush=True)\n    time.sleep(0.02)\nsubmit(item)`;

async function keys() {
  const r = await rig(
    scripted.byTask({
      "fan out": [{ code: FAN_OUT }, { text: "all eight streamed" }],
      "stream numbered lines": [{ code: CHILD }],
    }),
  );
  try {
    const p = r.open();
    await timeUntil(p, (t) => t.includes("new session"));
    p.proc.write("fan out to eight children\r");
    await timeUntil(p, (t) => (t.match(/ running /g) ?? []).length >= 8, performance.now(), 60_000);
    const watch = watchFrames(p);
    const cpu = sampleProcess(p.pid);
    const from = performance.now();
    let over = false;
    const finished = timeUntil(p, (t) => t.includes("all eight streamed"), from, 120_000).then(() => {
      over = true;
    });
    const typed = await typeAndTime(p, () => over || performance.now() - from > 15_000, watch.frames);
    const to = performance.now();
    await finished;
    watch.stop();
    cpu.stop();
    const c = cadence(watch.frames, from, to);
    const use = cpu.between(from, to);
    const soon = typed.filter((k) => k.sinceFrame < 16).map((k) => k.ms);
    const later = typed.filter((k) => k.sinceFrame >= 16).map((k) => k.ms);
    console.log("# keystroke to echo, ms, while rlm.map's 8 children each print a line every 20 ms (120x40)");
    table([
      { keystrokes: "all", ...stats(typed.map((k) => k.ms)) },
      { keystrokes: "typed < 16 ms after a frame reached the terminal", ...stats(soon) },
      { keystrokes: "typed later than that", ...stats(later) },
    ]);
    console.log(
      `meanwhile: ${f1(c.perSecond)} frames/s of ${c.meanBytes} bytes; UI process ${f1(use.cpu)}% of a core, ${f1(use.peakRssMb)} MB RSS`,
    );
    console.log("goal: p99 under 16 ms\n");
  } finally {
    await r.close();
  }
}

// --- 3. streaming markdown and a 5 MB cell: CPU and memory of the UI process --------------------------

/** A long markdown answer: headings, emphasis, lists, a table and a fenced code block per part. */
function markdownAnswer(parts) {
  const out = [];
  for (let i = 1; i <= parts; i++) {
    out.push(`## Part ${i}: what the stream shows`);
    out.push(
      `A paragraph with **bold**, *emphasis*, \`inline code\` and [a link](https://example.com/${i}). ${"The renderer keeps the lines it has drawn while the text grows. ".repeat(2)}`,
    );
    out.push(`- first point of part ${i}\n- second point, with \`code\`\n  - a nested point\n1. one\n2. two`);
    out.push(
      `| metric | value | unit |\n| --- | ---: | --- |\n| frames | ${i * 7} | per second |\n| bytes | ${i * 1300} | per frame |`,
    );
    out.push(
      `\`\`\`python\ndef part_${i}(xs):\n    """Sum of squares."""\n    return sum(x * x for x in xs)  # ${i}\n\`\`\``,
    );
  }
  out.push("STREAM-END-MARKER");
  return out.join("\n\n");
}

// The scripted model streams 16 characters per frame; at ~4 characters a token, one frame every 20 ms
// is 200 tokens/s.
const CHUNK_DELAY_MS = 20;
const MARKDOWN = markdownAnswer(24);
const FIVE_MB = `line = "x" * 92\nfor i in range(50_000):\n    print(f"{i:06d} {line}")\nprint("FIVE-MB-DONE")`;

async function stream() {
  // Two messages in one session: the step follows the latest message (and whether a cell just ran).
  const script = (ctx) => {
    if (!ctx.lastUserText?.includes("print five megabytes")) return { text: MARKDOWN };
    return ctx.body?.messages?.at(-1)?.role === "tool"
      ? { text: "five megabytes printed" }
      : { code: FIVE_MB };
  };
  const r = await rig(script, { chunkDelayMs: CHUNK_DELAY_MS });
  const rows = [];
  const row = (load, s) =>
    rows.push({
      load,
      seconds: f1(s.seconds),
      "CPU % (mean)": f1(s.cpu),
      "CPU % (busiest 1 s)": f1(s.busiest),
      "peak RSS MB": f1(s.peakRssMb),
    });
  try {
    const p = r.open();
    await timeUntil(p, (t) => t.includes("new session"));
    const cpu = sampleProcess(p.pid);
    // From the first part the UI shows (text streamed before the UI has attached to the new session's
    // host is not shown until the whole answer arrives) to the end of the answer.
    const started = arrival(p, /Part (\d+): what/, 120_000);
    p.proc.write("write the markdown report\r");
    const { at: mdFrom, match } = await started;
    await timeUntil(p, (t) => t.includes("STREAM-END-MARKER"), mdFrom, 120_000);
    const mdTo = performance.now();
    await timeUntil(p, (t) => t.includes("kernel idle") && !/responding|thinking/.test(t), mdTo, 30_000);
    const shown = MARKDOWN.length - MARKDOWN.indexOf(`## Part ${match[1]}:`);
    const rate = shown / 4 / ((mdTo - mdFrom) / 1000);
    row(
      `markdown from part ${match[1]} of 24, ${f1(shown / 1024)} KB at ~${rate.toFixed(0)} tokens/s`,
      cpu.between(mdFrom, mdTo),
    );

    p.proc.write("print five megabytes\r");
    await timeUntil(p, (t) => t.includes("running") && t.includes("ipython"), performance.now(), 60_000);
    const cellFrom = performance.now();
    await timeUntil(p, (t) => /FIVE-MB-DONE[\s\S]*✓/.test(t), cellFrom, 120_000);
    const cellTo = performance.now();
    await timeUntil(p, (t) => t.includes("five megabytes printed"), cellTo, 30_000);
    await sleep(2000); // what the UI costs once it is idle again
    const settled = performance.now();
    cpu.stop();
    row("cell printing 5 MB (50,000 lines), from its start to ✓", cpu.between(cellFrom, cellTo));
    row("idle afterwards", cpu.between(settled - 2000, settled));
  } finally {
    await r.close();
  }
  console.log("# the UI process (not the session host) while output streams in (120x40, /proc every 200 ms)");
  table(rows);
  console.log("goal: under 25% of one core and 120 MB RSS\n");
}

// --- 4. a 2,000-event transcript --------------------------------------------------------------------

const TARGET_EVENTS = 2000;
// Each session's cell and answer name its run: the second session opens on the first one's output, so
// waiting for a fixed text would find it on screen already.
const streamMore = (run) =>
  `import time\nfor i in range(800):\n    print(f"run ${run} streamed line {i}", flush=True)\n    time.sleep(0.01)`;

/** A sentence and a short cell per turn until the journal is long enough; "stream more" streams a cell. */
function transcriptScript(turns) {
  return (ctx) => {
    const run = /stream more lines please \(run (\d+)\)/.exec(ctx.lastUserText ?? "")?.[1];
    if (run !== undefined)
      return ctx.body?.messages?.at(-1)?.role === "tool"
        ? { text: `STREAM-MORE-DONE run ${run}` }
        : { code: streamMore(run) };
    const { turn } = scripted.whoAsks(ctx);
    if (turn < turns) return { text: `Step ${turn}: checking one more row.`, code: `print("row", ${turn})` };
    return { text: "TRANSCRIPT-END" };
  };
}

/** Opens the session in the UI, types for 8 s, then has a cell stream into it while typing. */
async function session(r, id, run, nodeArgs = []) {
  const start = performance.now();
  const p = r.open(["--resume", id], { nodeArgs });
  const watch = watchFrames(p);
  const opened = await timeUntil(p, (t) => t.includes("TRANSCRIPT-END") && t.includes(id), start, 60_000);
  const openFrames = watch.frames.filter((f) => f.at <= start + opened);
  const idleUntil = performance.now() + 8000;
  const idle = await typeAndTime(p, () => performance.now() > idleUntil);
  p.proc.write(`stream more lines please (run ${run})\r`);
  await timeUntil(p, (t) => t.includes(`run ${run} streamed line 5`), performance.now(), 60_000);
  const from = performance.now();
  let over = false;
  const done = timeUntil(p, (t) => t.includes(`STREAM-MORE-DONE run ${run}`), from, 120_000).then(() => {
    over = true;
  });
  const busy = await typeAndTime(p, () => over, watch.frames);
  await done;
  watch.stop();
  await p.close(); // detaches; the host finishes the turn and stays for the next run
  return { opened, openFrames, idle, busy, streaming: cadence(watch.frames, from, performance.now()) };
}

async function transcript() {
  const turns = Math.ceil(TARGET_EVENTS / 6); // request, response, cell, output, checkpoint, snapshot
  const r = await rig(transcriptScript(turns));
  const profiles = mkdtempSync(join(tmpdir(), "relm-bench-tui-prof-"));
  try {
    const built = performance.now();
    const args = [RELM, "run", "--max-turns", String(turns + 10), "build a long transcript"];
    await promisify(execFile)(process.execPath, args, { env: r.env, cwd: r.cwd });
    const [id] = readdirSync(join(r.home, "sessions"));
    const journal = join(r.home, "sessions", id, "journal.jsonl");
    const events = readFileSync(journal, "utf8").trim().split("\n").length;
    const buildS = (performance.now() - built) / 1000;
    const m = await session(r, id, 1);
    // The same steps again with a CPU profile of the UI: one frame is one call of pi-tui's doRender.
    const profiled = await session(r, id, 2, [
      "--cpu-prof",
      `--cpu-prof-dir=${profiles}`,
      "--cpu-prof-interval=250",
    ]);
    const frames = profiledFrames(join(profiles, readdirSync(profiles)[0]));
    const opening = frames.filter((f) => f.startMs < profiled.opened);
    const after = frames.filter((f) => f.startMs >= profiled.opened).map((f) => f.ms);
    const longest = Math.max(...opening.map((f) => f.ms));
    console.log(
      `# a transcript of ${events} journal events (built by relm run in ${f1(buildS)} s), relm --resume ID, 120x40`,
    );
    table([
      {
        measure: "open: spawn until the whole transcript is on screen",
        p50: f1(m.opened),
        p99: "",
        max: "",
        n: 1,
        note: `${m.openFrames.length} frames, ${m.openFrames.reduce((n, f) => n + f.bytes, 0)} bytes`,
      },
      { measure: "keystroke to echo, idle (one frame each)", ...stats(m.idle.map((k) => k.ms)), note: "" },
      { measure: "keystroke to echo while a cell streams", ...stats(m.busy.map((k) => k.ms)), note: "" },
      {
        measure: "interval between frames while a cell streams",
        ...stats(m.streaming.gaps),
        note: `${f1(m.streaming.perSecond)} frames/s, ${m.streaming.meanBytes} bytes each`,
      },
      {
        measure: "frame time (CPU profile): opening",
        p50: "",
        p99: "",
        max: f1(longest),
        n: opening.length,
        note: "the frame that draws the whole transcript",
      },
      {
        measure: "frame time (CPU profile): typing, then a cell streaming",
        ...stats(after),
        note: "profiled run; sampling every 250 µs adds overhead",
      },
    ]);
    console.log("goal: frame time p99 under 16 ms (pi-tui draws at most one frame per 16 ms)\n");
  } finally {
    await r.close();
    rmSync(profiles, { recursive: true, force: true });
  }
}

const SECTIONS = { launch, keys, stream, transcript };
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !(w in SECTIONS));
if (unknown.length > 0) {
  console.error(`tui bench: no section ${unknown.join(", ")} (have: ${Object.keys(SECTIONS).join(", ")})`);
  process.exit(2);
}
for (const [name, run] of Object.entries(SECTIONS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  // Other work on the machine moves these figures: say how busy it was.
  console.log(`(${name}: load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores)`);
  await run();
}
