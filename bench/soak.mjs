// Sustained load: sessions re-entered by a schedule every few seconds (each tick a turn with one cell),
// and optionally one session fanning out 4 children at each of its ticks, for MINUTES; the RSS of every
// session host and of the waker is sampled throughout, and with --snapshots a heap snapshot of one host
// and of the waker is taken after the warm-up and at the end and compared (bench/heap-diff.mjs).
// Growth is measured from the end of the warm-up (caches, JIT and the kernel template settle first).
// `--warmup compacted` ends the warm-up when every session has compacted its conversation once (its state
// has reached its working size; needs --window) and then measures for a further MINUTES.
// Run after `npm run build`:
//   node bench/soak.mjs [--minutes 10] [--sessions 10] [--every 5s] [--fanout] [--warmup 2|compacted] [--snapshots]
//                       [--reports] [--window TOKENS]
// The hour-long figure in docs/benchmarks.md: node bench/soak.mjs --minutes 60 --sessions 10 --fanout
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs, promisify } from "node:util";
import { startScriptedModel, whoAsks } from "../dist/scripted/index.js";
import { diff, growthByHolder, printDiff, summarize } from "./heap-diff.mjs";
import { median, ROOT, scriptedEnv } from "./lib.mjs";

const { values: opts } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    sessions: { type: "string", default: "10" },
    every: { type: "string", default: "5s" },
    warmup: { type: "string", default: "2" },
    fanout: { type: "boolean", default: false },
    snapshots: { type: "boolean", default: false },
    reports: { type: "boolean", default: false },
    // The model's context window in tokens: each tick adds to the conversation, which without a window
    // it can fill grows for the whole run (270 KB a request after an hour) and the hosts' memory with
    // it; with one, compaction keeps it bounded as in a real long session. 0: the default window.
    window: { type: "string", default: "0" },
  },
});
if (opts.snapshots && opts.reports) throw new Error("--snapshots or --reports, not both (one signal)");
const MINUTES = Number(opts.minutes);
const UNTIL_COMPACTED = opts.warmup === "compacted";
if (UNTIL_COMPACTED && !(Number(opts.window) > 0))
  throw new Error("--warmup compacted needs --window TOKENS");
const WARMUP_MS = UNTIL_COMPACTED ? 0 : Number(opts.warmup) * 60_000;
if (!UNTIL_COMPACTED && !Number.isFinite(WARMUP_MS)) throw new Error("--warmup: minutes or compacted");
/** Compactions asked of the model, by the session whose conversation it was ("tick 3", "fanout"). */
const compactions = new Map();
const SAMPLE_MS = 30_000;

const model = await startScriptedModel({
  script: (ctx) => {
    const { task } = whoAsks(ctx);
    const messages = ctx.body.messages ?? [];
    const afterCell = messages.at(-1)?.role === "tool";
    if (ctx.rawBody.includes("Transcript of the earlier turns")) {
      const who = /SOAK: (tick \d+|fanout)/.exec(ctx.rawBody)?.[1] ?? "?";
      compactions.set(who, (compactions.get(who) ?? 0) + 1);
      return { text: "Ticks so far: all done." };
    }
    if (task.includes("say hi")) return { text: "hi" }; // a fan-out child
    if (afterCell) return { text: "done" };
    if (task.includes("SOAK: fanout")) return { code: 'r = rlm.map("say hi", [1, 2, 3, 4])\nlen(r)' };
    return { code: "import random\nx = [random.random() for _ in range(1000)]\nround(sum(x))" };
  },
});
const { home, env } = scriptedEnv(model, "relm-bench-soak-");
if (Number(opts.window) > 0)
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({ contextWindows: { bench: Number(opts.window) } }),
  );
const work = join(home, "work");
mkdirSync(work);
if (opts.snapshots) env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} --heapsnapshot-signal=SIGUSR2`.trim();
// A diagnostic report (cheap, unlike a snapshot, which itself grows the RSS): heap used and committed,
// native allocations, libuv handles.
if (opts.reports) {
  env.NODE_OPTIONS =
    `${env.NODE_OPTIONS ?? ""} --report-on-signal --report-signal=SIGUSR2 --report-directory=${join(home, "reports")}`.trim();
}
const relm = (args) =>
  promisify(execFile)(process.execPath, [join(ROOT, "dist/cli/relm.cjs"), ...args], {
    env,
    cwd: work,
    encoding: "utf8",
  });

/** A /proc/PID/status figure in MB: VmRSS, or RssAnon (the process's own pages, without the `node`
 * binary's file pages, which grow as more of Node's code runs and are shared by every host). */
function rssMb(pid, field = "VmRSS") {
  try {
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(
      readFileSync(`/proc/${pid}/status`, "utf8"),
    )?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

function hostPids() {
  const pids = new Map();
  for (const id of readdirSync(join(home, "sessions"))) {
    try {
      const state = JSON.parse(readFileSync(join(home, "sessions", id, "state.json"), "utf8"));
      if (rssMb(state.pid) !== undefined) pids.set(id, state.pid);
    } catch {
      // no state yet
    }
  }
  return pids;
}

function wakerPid() {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("__waker")) continue;
      if (readFileSync(`/proc/${entry}/environ`, "utf8").includes(`RELM_HOME=${home}\0`))
        return Number(entry);
    } catch {
      // gone, or not ours
    }
  }
  return undefined;
}

/** Sends SIGUSR2 and waits for the snapshot file it writes (in the process's cwd) to be complete. */
async function snapshot(pid) {
  const before = new Set(readdirSync(work));
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const file = readdirSync(work).find(
      (f) => !before.has(f) && f.includes(`.${pid}.`) && f.endsWith(".heapsnapshot"),
    );
    if (!file) continue;
    const size = statSync(join(work, file)).size;
    await new Promise((r) => setTimeout(r, 1000));
    if (statSync(join(work, file)).size === size && size > 0) return join(work, file);
  }
  throw new Error(`no heap snapshot from ${pid}`);
}

/** The figures of a diagnostic report of `pid`, in MB (and the count of libuv handles). */
async function report(pid) {
  const dir = join(home, "reports");
  mkdirSync(dir, { recursive: true });
  const before = new Set(readdirSync(dir));
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const file = readdirSync(dir).find((f) => !before.has(f) && f.includes(`.${pid}.`));
    if (!file) continue;
    let r;
    try {
      r = JSON.parse(readFileSync(join(dir, file), "utf8"));
    } catch {
      continue; // still being written
    }
    const mb = (n) => n / 1024 / 1024;
    const h = r.javascriptHeap;
    return {
      rss: mb(r.resourceUsage.rss),
      heapUsed: mb(h.usedMemory),
      heapTotal: mb(h.totalMemory),
      external: mb(h.externalMemory),
      malloced: mb(h.mallocedMemory),
      handles: r.libuv.length,
      spaces: Object.fromEntries(Object.entries(h.heapSpaces).map(([k, v]) => [k, mb(v.memorySize)])),
    };
  }
  return undefined;
}

function printReport(label, r) {
  if (!r) return;
  const f = (n) => n.toFixed(1);
  console.log(
    `  ${label}: RSS ${f(r.rss)} MB; JS heap used ${f(r.heapUsed)} of ${f(r.heapTotal)} MB; external ${f(r.external)} MB; V8 malloced ${f(r.malloced)} MB; ${r.handles} libuv handles; spaces ${Object.entries(
      r.spaces,
    )
      .filter(([, v]) => v > 0.5)
      .map(([k, v]) => `${k} ${f(v)}`)
      .join(", ")}`,
  );
}

const sessions = [];
for (let i = 0; i < Number(opts.sessions); i++) {
  const id = (await relm(["run", "--detach", `SOAK: tick ${i}`])).stdout.trim();
  await relm(["schedule", "add", id, "--every", opts.every, "tick"]);
  sessions.push(id);
}
if (opts.fanout) {
  const id = (await relm(["run", "--detach", "SOAK: fanout"])).stdout.trim();
  await relm(["schedule", "add", id, "--every", "10s", "fan out"]);
  sessions.push(id);
}
console.log(
  `${sessions.length} sessions ticking every ${opts.every}${opts.fanout ? " (+1 fanning out 4 children every 10s)" : ""} for ${MINUTES} min${UNTIL_COMPACTED ? " after every session has compacted once" : ""}`,
);

const t0 = Date.now();
const samples = [];
let baseline;
/** When the measured period ends: MINUTES after the start, or after the warm-up with --warmup compacted. */
const endAt = () =>
  UNTIL_COMPACTED ? (baseline ? baseline.at + MINUTES * 60_000 : Infinity) : t0 + MINUTES * 60_000;
const allCompacted = () =>
  sessions.every((_, i) => compactions.has(i < Number(opts.sessions) ? `tick ${i}` : "fanout"));
const snaps = {};
const first = sessions[0];
while (Date.now() < endAt()) {
  await new Promise((r) => setTimeout(r, SAMPLE_MS));
  model.requests.length = 0; // the scripted server keeps every request; not what is measured
  const hosts = [...hostPids().values()].map((pid) => rssMb(pid)).filter((v) => v !== undefined);
  const waker = wakerPid();
  const sample = {
    min: (Date.now() - t0) / 60_000,
    hosts: hosts.length,
    hostMedian: median(hosts),
    anonMedian: median(
      [...hostPids().values()].map((pid) => rssMb(pid, "RssAnon")).filter((v) => v !== undefined),
    ),
    hostMax: Math.max(...hosts),
    waker: waker ? rssMb(waker) : undefined,
  };
  samples.push(sample);
  console.log(
    `${sample.min.toFixed(1).padStart(5)} min  hosts ${sample.hosts}  RSS median ${sample.hostMedian?.toFixed(1)} MB (anonymous ${sample.anonMedian?.toFixed(1)}), max ${sample.hostMax.toFixed(1)} MB  waker ${sample.waker?.toFixed(1) ?? "-"} MB`,
  );
  if (!baseline && (UNTIL_COMPACTED ? allCompacted() : Date.now() - t0 >= WARMUP_MS)) {
    if (UNTIL_COMPACTED)
      console.log(`  every session has compacted once: measuring ${MINUTES} min from here`);
    baseline = {
      at: Date.now(),
      sample,
      perHost: new Map([...hostPids()].map(([id, pid]) => [id, rssMb(pid)])),
    };
    if (opts.snapshots) {
      snaps.host0 = await snapshot(hostPids().get(first));
      if (opts.fanout) snaps.fan0 = await snapshot(hostPids().get(sessions.at(-1)));
      if (waker) snaps.waker0 = await snapshot(waker);
    }
  }
  if (opts.reports) {
    const last = sessions.at(-1);
    printReport(`host ${first}`, await report(hostPids().get(first)));
    if (opts.fanout && hostPids().get(last))
      printReport(`host ${last} (fan-out)`, await report(hostPids().get(last)));
    if (waker) printReport("waker", await report(waker));
  }
}
const end = samples.at(-1);
if (opts.snapshots) {
  snaps.host1 = await snapshot(hostPids().get(first));
  if (opts.fanout) snaps.fan1 = await snapshot(hostPids().get(sessions.at(-1)));
  const waker = wakerPid();
  if (waker) snaps.waker1 = await snapshot(waker);
}
// Per host: growth from its own RSS at the end of the warm-up.
const growth = [...hostPids()]
  .map(([id, pid]) => {
    const before = baseline?.perHost.get(id);
    const after = rssMb(pid);
    return before && after ? (after / before - 1) * 100 : undefined;
  })
  .filter((g) => g !== undefined);
const pct = (a, b) => (a && b ? `${((b / a - 1) * 100).toFixed(1)}%` : "-");
console.log("\nfrom the end of the warm-up to the end:");
console.log(
  `  hosts: RSS median ${baseline?.sample.hostMedian?.toFixed(1)} -> ${end.hostMedian?.toFixed(1)} MB (${pct(baseline?.sample.hostMedian, end.hostMedian)}), anonymous ${baseline?.sample.anonMedian?.toFixed(1)} -> ${end.anonMedian?.toFixed(1)} MB (${pct(baseline?.sample.anonMedian, end.anonMedian)}); per host growth median ${median(growth)?.toFixed(1)}%, range ${Math.min(...growth).toFixed(1)}% to ${Math.max(...growth).toFixed(1)}%`,
);
console.log(
  `  waker: RSS ${baseline?.sample.waker?.toFixed(1)} -> ${end.waker?.toFixed(1)} MB (${pct(baseline?.sample.waker, end.waker)})`,
);
if (opts.snapshots) {
  console.log();
  if (snaps.host0 && snaps.host1)
    printDiff(diff(summarize(snaps.host0), summarize(snaps.host1), 15), `host ${first}: `);
  if (snaps.fan0 && snaps.fan1) {
    printDiff(diff(summarize(snaps.fan0), summarize(snaps.fan1), 15), `host ${sessions.at(-1)} (fan-out): `);
    console.log("  new objects by the old object that holds them:");
    for (const [key, g] of growthByHolder(snaps.fan0, snaps.fan1, 12)) {
      console.log(`  ${(g.size / 1024).toFixed(1).padStart(8)} KB  ${String(g.count).padStart(6)}  ${key}`);
    }
  }
  if (snaps.waker0 && snaps.waker1)
    printDiff(diff(summarize(snaps.waker0), summarize(snaps.waker1), 15), "waker: ");
  console.log(`snapshots in ${work}`);
}
await relm(["shutdown"]);
await model.close();
