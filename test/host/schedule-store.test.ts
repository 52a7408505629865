// The schedules file: compaction keeps its meaning and its size bounded; writers in several processes
// (hosts claiming ticks, the CLI adding and pausing) never lose a record, even while it is compacted.
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withFileLock } from "../../src/host/file-lock.js";
import { checkInbound } from "../../src/host/inbound.js";
import { Scheduler } from "../../src/host/schedules/scheduler.js";
import {
  activeJobs,
  addJob,
  cancelJob,
  claimTick,
  dueTick,
  type JobState,
  MAX_PROMPT_BYTES,
  parseTiming,
  pauseJobs,
  resumeJobs,
  sessionJobs,
} from "../../src/host/schedules/schedules.js";
import { scheduleFile } from "../../src/host/schedules/store.js";
import { ROOT, tempDir } from "../support/cli.js";
import { until } from "../support/wait.js";

const homes: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of homes.splice(0)) cleanup();
});

function home(...sessions: string[]): string {
  const dir = tempDir("relm-sched-");
  homes.push(dir.cleanup);
  for (const s of sessions) mkdirSync(join(dir.path, "sessions", s), { recursive: true });
  return dir.path;
}

const lines = (path: string) => readFileSync(path, "utf8").trim().split("\n");
/** What a job means, without the fields that only say when something was written. */
const meaning = (jobs: JobState[]) =>
  jobs.map((j) => ({ id: j.id, lastClaimed: j.lastClaimed, next: j.next?.toISOString(), paused: j.paused }));

describe("the schedules file", () => {
  it("compaction keeps the meaning: each job's add, last claim and pause; cancelled jobs go", () => {
    const h = home("s1");
    const file = scheduleFile(h, "s1");
    const created = new Date(Date.now() - 86_400_000).toISOString();
    const job = (id: string, timing: object) => ({
      op: "add",
      job: { id, session: "s1", timing, prompt: id, created },
    });
    const claim = (id: string, i: number) => ({
      op: "claim",
      job: id,
      due: new Date(Date.parse(created) + i * 5000).toISOString(),
      at: created,
      merged: 1,
    });
    // A day of history written as an older relm would have left it: never compacted.
    const history: object[] = [
      job("ja", { every: "5s" }),
      job("jb", { every: "1m" }),
      job("jc", { cron: "0 9 * * *" }),
    ];
    for (let i = 1; i <= 3000; i++) {
      history.push(claim("ja", i));
      if (i % 100 === 0) history.push(claim("jb", i));
      if (i === 1000) history.push({ op: "cancel", job: "jc", at: created });
      if (i === 2000) history.push({ op: "pause", job: "jb", at: created, reason: "test" });
    }
    writeFileSync(file, history.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const before = meaning(sessionJobs(h, "s1").filter((j) => !j.cancelled));
    expect(before.map((j) => j.id)).toEqual(["ja", "jb"]);

    claimTick(h, "s1", "ja", new Date(Date.parse(created) + 3001 * 5000), 1); // appends, then compacts
    const after = meaning(sessionJobs(h, "s1"));
    expect(after[1]).toEqual(before[1]); // jb: its last claim and its pause
    expect(after[0]?.lastClaimed).toBe(new Date(Date.parse(created) + 3001 * 5000).toISOString());
    expect(lines(file).map((l) => JSON.parse(l).op)).toEqual(["add", "claim", "add", "claim", "pause"]);
  });

  it("stays small however many ticks are claimed", () => {
    const h = home("s1");
    const a = addJob(h, "s1", { every: "5s" }, "tick a");
    const t0 = Date.parse(a.created);
    let largest = 0;
    for (let i = 1; i <= 1000; i++) {
      claimTick(h, "s1", a.id, new Date(t0 + i * 5000), 1);
      largest = Math.max(largest, statSync(scheduleFile(h, "s1")).size);
    }
    // 1,000 claims of ~120 bytes would be ~120 KB; compaction starts at 32 KB.
    expect(largest).toBeLessThan(40 * 1024);
    expect(statSync(scheduleFile(h, "s1")).size).toBeLessThan(32 * 1024);
    expect(sessionJobs(h, "s1")[0]?.lastClaimed).toBe(new Date(t0 + 1000 * 5000).toISOString());
  });

  it("a record written after a line torn by a crash is not swallowed by it", () => {
    const h = home("s1");
    const job = addJob(h, "s1", { every: "10s" }, "x");
    appendFileSync(scheduleFile(h, "s1"), '{"op":"claim","job":"'); // the crash
    const due = new Date(Date.parse(job.created) + 10_000);
    claimTick(h, "s1", job.id, due, 1);
    expect(sessionJobs(h, "s1")[0]?.lastClaimed).toBe(due.toISOString());
    expect(lines(scheduleFile(h, "s1"))).toHaveLength(3);
  });

  it("a lock left by a process that died is taken over; one a live process holds is waited for", () => {
    const h = home("s1");
    const lock = join(h, "sessions", "s1", "schedules.lock");
    writeFileSync(lock, "999999999"); // no such process
    expect(withFileLock(lock, () => 42)).toBe(42);
    writeFileSync(lock, String(process.ppid)); // alive: the runner of this test
    expect(() => withFileLock(lock, () => 0, 100)).toThrow(/held for over 100 ms/);
  });

  it("writers in several processes, compacting as they go, lose nothing; a reader never sees a claim go back", async () => {
    const h = home("s1");
    const writers = 4;
    const claims = 600;
    const jobs = Array.from({ length: writers }, (_, i) => addJob(h, "s1", { every: "1s" }, `w${i}`));
    // Each writer claims its own job's ticks in order, through the built module (as a host would).
    const script = `
        const { claimTick } = await import(${JSON.stringify(join(ROOT, "dist/host/schedules/schedules.js"))});
        const [home, job, n, t0] = process.argv.slice(1);
        for (let i = 1; i <= Number(n); i++) claimTick(home, "s1", job, new Date(Number(t0) + i * 1000), 1);
      `;
    const t0 = Date.parse(jobs[0]?.created ?? "");
    const done = jobs.map(
      (job) =>
        new Promise<number | null>((resolve) => {
          const child = spawn(
            process.execPath,
            ["--input-type=module", "-e", script, h, job.id, String(claims), String(t0)],
            { stdio: ["ignore", "ignore", "inherit"] },
          );
          child.on("close", resolve);
        }),
    );
    let finished = false;
    const all = Promise.all(done).finally(() => {
      finished = true;
    });
    const last = new Map<string, string>();
    let reads = 0;
    while (!finished) {
      for (const j of sessionJobs(h, "s1")) {
        const seen = j.lastClaimed ?? "";
        expect(seen >= (last.get(j.id) ?? ""), `claim of ${j.id} went back`).toBe(true);
        last.set(j.id, seen);
      }
      reads++;
      await new Promise((r) => setImmediate(r));
    }
    expect(await all).toEqual(jobs.map(() => 0));
    const end = new Date(t0 + claims * 1000).toISOString();
    expect(sessionJobs(h, "s1").map((j) => [j.id, j.lastClaimed])).toEqual(jobs.map((j) => [j.id, end]));
    expect(reads).toBeGreaterThan(10);
    expect(statSync(scheduleFile(h, "s1")).size).toBeLessThan(40 * 1024);
  }, 120_000);
});

describe("--at times", () => {
  it("a clearly past time is a usage error; a few seconds of clock skew are taken (the tick fires at once)", () => {
    const now = new Date("2026-06-01T12:00:00Z");
    let refused: unknown;
    try {
      parseTiming({ at: "2026-06-01T11:00:00Z" }, now);
    } catch (error) {
      refused = error;
    }
    expect(String(refused)).toMatch(
      /--at "2026-06-01T11:00:00Z" is in the past \(2026-06-01T11:00:00.000Z; now is 2026-06-01T12:00:00.000Z\)/,
    );
    expect((refused as { exitCode?: number }).exitCode).toBe(2);
    expect(parseTiming({ at: "2026-06-01T11:59:55Z" }, now)).toEqual({ at: "2026-06-01T11:59:55.000Z" });
    expect(parseTiming({ at: "2026-06-01T12:30:00Z" }, now)).toEqual({ at: "2026-06-01T12:30:00.000Z" });
  });
});

describe("paused jobs", () => {
  it("are kept but not active; resumed, they owe no tick that fell due while paused", () => {
    const h = home("s1", "s2");
    const every = addJob(h, "s1", { every: "1h" }, "hourly");
    const at = addJob(h, "s2", { at: new Date(Date.now() - 1000).toISOString() }, "once");
    // Pretend the hourly job was last claimed a day ago: five ticks missed.
    claimTick(h, "s1", every.id, new Date(Date.now() - 5.5 * 3600_000), 1);
    expect(dueTick(sessionJobs(h, "s1")[0] as JobState, new Date())?.count).toBe(5);

    const paused = pauseJobs(h, "relm shutdown");
    expect(paused.map((j) => j.id).sort()).toEqual([every.id, at.id].sort());
    const all = [...sessionJobs(h, "s1"), ...sessionJobs(h, "s2")];
    expect(activeJobs(all)).toEqual([]);
    expect(all.every((j) => j.paused?.reason === "relm shutdown" && j.next !== undefined)).toBe(true);
    expect(pauseJobs(h, "again")).toEqual([]); // nothing active is left to pause

    const before = Date.now();
    const resumed = resumeJobs(h, (j) => j.session === "s1");
    expect(resumed.map((j) => j.id)).toEqual([every.id]);
    const hourly = sessionJobs(h, "s1")[0] as JobState;
    expect(hourly.paused).toBeUndefined();
    // The next tick is an hour after the resume, not the five missed ones at once.
    expect(hourly.next?.getTime()).toBeGreaterThanOrEqual(before + 3600_000);
    expect(dueTick(hourly, new Date())).toBeUndefined();
    expect(activeJobs(sessionJobs(h, "s2"))).toEqual([]); // still paused

    resumeJobs(h);
    const once = sessionJobs(h, "s2")[0] as JobState;
    expect(dueTick(once, new Date())?.count).toBe(1); // an --at that passed while paused fires now
  });

  it("a host's scheduler delivers nothing while its job is paused, and ticks again once resumed", async () => {
    const h = home("s1");
    const job = addJob(h, "s1", { every: "1s" }, "tick");
    pauseJobs(h, "test");
    const delivered: string[] = [];
    const scheduler = new Scheduler(h, "s1", (_from, text) => delivered.push(text));
    const ticks = () => delivered.filter((text) => text.endsWith(" tick"));
    try {
      scheduler.reload();
      expect(scheduler.pending()).toEqual([]);
      expect(scheduler.jobs().map((j) => j.id)).toEqual([job.id]);
      // Three intervals pass with nothing delivered: a control job added after the pause, on the same
      // scheduler, is delivered three times meanwhile.
      const control = addJob(h, "s1", { every: "1s" }, "control");
      scheduler.reload();
      await until(() => (delivered.length >= 3 ? true : undefined));
      expect(ticks()).toEqual([]);
      cancelJob(h, control.id);
      resumeJobs(h);
      scheduler.reload();
      await until(() => (ticks().length > 0 ? true : undefined));
      expect(ticks()[0]).toBe("[every 1s] tick"); // no missed ticks owed for the pause
    } finally {
      scheduler.stop();
    }
  });

  it("days of missed 1-second ticks are one message, saying how many, and the next tick is ahead", () => {
    // A machine asleep for three days: the merged tick was found by stepping through the missed ones
    // and stopped at 100,000, so it "stood for all 100001", claimed a due time still two days old and
    // was followed at once by another merged tick (the cron one after ~2.5 s of a blocked host).
    for (const timing of [{ every: "1s" }, { cron: "* * * * * *" }]) {
      const h = home("s1");
      const job = addJob(h, "s1", timing, "heartbeat");
      const path = scheduleFile(h, "s1");
      const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString();
      writeFileSync(path, readFileSync(path, "utf8").replace(job.created, threeDaysAgo));
      const delivered: string[] = [];
      const scheduler = new Scheduler(h, "s1", (_from, text) => delivered.push(text));
      const before = Date.now();
      try {
        scheduler.reload();
        expect(delivered, JSON.stringify(timing)).toHaveLength(1);
        const missed = /\((over )?([\d,]+) earlier ticks came/.exec(delivered[0] as string);
        const count = Number(missed?.[2]?.replace(/,/g, ""));
        if ("every" in timing) expect(count).toBeGreaterThan(3 * 86_400 - 5);
        else expect(missed?.[1]).toBe("over ");
        // Caught up: the next tick is after the reload, not another backlog due at once.
        expect(scheduler.nextTickAt(), JSON.stringify(timing)).toBeGreaterThan(before);
      } finally {
        scheduler.stop();
      }
    }
  });

  it("a tick not yet read holds the job's next ones back; they come as one once it is read", async () => {
    // A long turn read none of a 1-second heartbeat's ticks until its end: each was queued, one copy of
    // the prompt per second, until the 100-message inbox was full and the person's messages were refused.
    const h = home("s1");
    const job = addJob(h, "s1", { every: "1s" }, "heartbeat");
    const control = addJob(h, "s1", { every: "1s" }, "control");
    const unread: string[] = [];
    const delivered: string[] = [];
    const scheduler = new Scheduler(
      h,
      "s1",
      (from, text) => {
        delivered.push(text);
        if (from === `schedule ${job.id}`) unread.push(text); // the control job's ticks are read at once
      },
      (from) => from === `schedule ${job.id}` && unread.length > 0,
    );
    const of = (prompt: string) => delivered.filter((t) => t.includes(prompt));
    try {
      scheduler.reload();
      await until(() => (of("heartbeat").length >= 1 ? true : undefined));
      // Three more intervals (the control job ticks each one) while the heartbeat's tick waits unread.
      await until(() => (of("control").length >= 4 ? true : undefined));
      expect(of("heartbeat")).toHaveLength(1);
      unread.splice(0); // the turn reads it
      await until(() => (of("heartbeat").length >= 2 ? true : undefined));
      expect(of("heartbeat")[1]).toMatch(
        /^\[every 1s\] heartbeat \((\d+) earlier ticks? came while the session was not running or had not read the last one; this one stands for all \d+\)$/,
      );
      const claims = readFileSync(scheduleFile(h, "s1"), "utf8")
        .split("\n")
        .filter((l) => l.includes('"claim"') && l.includes(job.id));
      expect(claims).toHaveLength(2);
    } finally {
      scheduler.stop();
      cancelJob(h, control.id);
    }
  });

  it("refuses a prompt no tick could deliver, and takes the longest one that can be", async () => {
    // A prompt over the host's message limit (16 KB) was added; every tick was then claimed and
    // dropped by the host's refusal, silently, for as long as the job lived.
    const h = home("s1");
    const every = { every: "10m" };
    expect(() => addJob(h, "s1", every, "y".repeat(20_000))).toThrow(
      /a schedule's prompt is at most \d+ bytes \(this one is 20000\)/,
    );
    expect(sessionJobs(h, "s1")).toEqual([]);
    const delivered: string[] = [];
    const longest = "z".repeat(MAX_PROMPT_BYTES);
    addJob(h, "s1", { every: "1s" }, longest);
    const scheduler = new Scheduler(h, "s1", (_from, text) => {
      checkInbound(text, 0, "s1", false);
      delivered.push(text);
    });
    // Its first tick is a second away; the host's own check (checkInbound) takes the tick's text.
    scheduler.reload();
    try {
      await until(() => (delivered.length > 0 ? true : undefined), 30_000);
    } finally {
      scheduler.stop();
    }
    expect(delivered[0]).toContain(longest);
  });
});
