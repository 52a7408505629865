// What reading a session's schedules costs (src/host/schedules/schedules.ts: sessionJobs, which a host runs
// several times a tick and the waker every second) after a day, a week and a month of 5-second ticks:
// once as relm used to leave the file (every claim appended, never compacted), once written through
// claimTick as relm writes it now (compacted under its lock as it grows).
// The file lives on /dev/shm when there is one: a month is 518,400 claims, each fsynced, which would take
// most of an hour on a disk; what is measured, the read, is served from the page cache either way.
// Run after `npm run build`:   node bench/schedules.mjs [reads=200]
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { addJob, claimTick, sessionJobs } from "../dist/host/schedules/schedules.js";
import { scheduleFile } from "../dist/host/schedules/store.js";
import { median, quantile, table } from "./lib.mjs";

const READS = Number(process.argv[2] ?? 200);
const TICK_MS = 5000;
const SPANS = [
  ["1 day", 86_400_000 / TICK_MS],
  ["1 week", (7 * 86_400_000) / TICK_MS],
  ["1 month", (30 * 86_400_000) / TICK_MS],
];
const base = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();

function freshHome() {
  const home = mkdtempSync(join(base, "relm-bench-sched-"));
  mkdirSync(join(home, "sessions", "s1"), { recursive: true });
  return home;
}

/** Median and p90 of `READS` reads, after one to warm up; checks what it read. */
function reads(home, expectClaims) {
  const got = sessionJobs(home, "s1")[0];
  if (got?.lastClaimed !== expectClaims)
    throw new Error(`read ${got?.lastClaimed}, expected ${expectClaims}`);
  const times = [];
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now();
    sessionJobs(home, "s1");
    times.push(performance.now() - t0);
  }
  return { p50: median(times), p90: quantile(times, 0.9) };
}

const rows = [];
for (const [span, ticks] of SPANS) {
  // As relm used to leave it: the add record, then one claim per tick.
  const old = freshHome();
  const created = new Date(Date.now() - ticks * TICK_MS - 60_000).toISOString();
  const job = { id: "jbench001", session: "s1", timing: { every: "5s" }, prompt: "tick", created };
  const lines = [JSON.stringify({ op: "add", job })];
  for (let i = 1; i <= ticks; i++) {
    const due = new Date(Date.parse(created) + i * TICK_MS).toISOString();
    lines.push(JSON.stringify({ op: "claim", job: job.id, due, at: due, merged: 1 }));
  }
  writeFileSync(scheduleFile(old, "s1"), `${lines.join("\n")}\n`);
  const last = new Date(Date.parse(created) + ticks * TICK_MS).toISOString();
  const before = reads(old, last);
  const oldSize = statSync(scheduleFile(old, "s1")).size;
  rmSync(old, { recursive: true, force: true });

  // As relm writes it now: every claim through claimTick (lock, append, fsync, compaction when due).
  const now = freshHome();
  const added = addJob(now, "s1", { every: "5s" }, "tick");
  const t0 = Date.parse(added.created);
  const w0 = performance.now();
  for (let i = 1; i <= ticks; i++) claimTick(now, "s1", added.id, new Date(t0 + i * TICK_MS), 1);
  const writeUs = ((performance.now() - w0) * 1000) / ticks;
  const after = reads(now, new Date(t0 + ticks * TICK_MS).toISOString());
  const newSize = statSync(scheduleFile(now, "s1")).size;
  rmSync(now, { recursive: true, force: true });

  rows.push({
    span,
    ticks,
    "uncompacted: size": `${(oldSize / 1024 / 1024).toFixed(1)} MB`,
    "read p50": `${before.p50.toFixed(2)} ms`,
    "compacted: size": `${(newSize / 1024).toFixed(1)} KB`,
    "read p50 ": `${after.p50.toFixed(3)} ms`,
    "read p90": `${after.p90.toFixed(3)} ms`,
    "claim (write)": `${writeUs.toFixed(0)} µs`,
  });
}
console.log(`one job ticking every 5 s; ${READS} reads each; files on ${base}`);
table(rows);
