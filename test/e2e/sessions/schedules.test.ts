import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { wakerRunning } from "../../../src/host/schedules/waker.js";
import { runRelm } from "../../support/cli.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { byTask } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { poll, until } from "../../support/wait.js";

const startRig = useRigs();

describe("schedules", () => {
  it("--every 2s re-enters the session, again after its host was killed (the waker revives it); no tick twice", async () => {
    const ticks = Array.from({ length: 20 }, (_, i) => ({ text: `tick answer ${i}` }));
    const rig = await startRig("openai", {
      script: byTask({ "TASK: be scheduled": [{ text: "ready" }, ...ticks] }),
    });
    try {
      const id = (
        await runRelm(["run", "--detach", "TASK: be scheduled"], { env: rig.env, cwd: rig.cwd })
      ).stdout.trim();
      const add = await runRelm(["schedule", "add", id, "--every", "2s", "check the build"], {
        env: rig.env,
      });
      expect(add.code, add.stderr).toBe(0);
      const job = add.stdout.trim();
      const dir = onlyJournal(rig.home).dir;
      const deliveries = () =>
        onlyJournal(rig.home).lines.filter(
          (l: JournalLine) => l.type === "user" && String(l.text).includes("check the build"),
        );
      // Generous deadlines: how soon a tick lands is the machine's speed (bench, not test); that it
      // lands, and lands once, is the behaviour.
      await until(() => (deliveries().length >= 1 ? true : undefined), 60_000).catch(() => undefined);
      expect(deliveries().length).toBeGreaterThanOrEqual(1);

      const state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as { pid: number };
      process.kill(state.pid, "SIGKILL");
      const beforeKill = deliveries().length;
      // The waker revives the host for the next due tick.
      await until(() => (deliveries().length > beforeKill ? true : undefined), 60_000).catch(() => undefined);
      expect(deliveries().length).toBeGreaterThan(beforeKill);

      const claims = readFileSync(join(dir, "schedules.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { op: string; job?: string; due?: string })
        .filter((r) => r.op === "claim");
      const dues = claims.map((c) => c.due);
      expect(new Set(dues).size).toBe(dues.length);
      // Each delivered message is one claimed tick: never more deliveries than claims.
      expect(deliveries().length).toBeLessThanOrEqual(claims.length);
      expect(claims.every((c) => c.job === job)).toBe(true);

      const pause = await runRelm(["schedule", "pause", job], { env: rig.env });
      expect(pause.code, pause.stderr).toBe(0);
      expect(pause.stderr).toContain(`paused 1 job(s): ${job}; relm schedule resume restarts them`);
      expect((await runRelm(["schedule", "list"], { env: rig.env })).stdout).toContain("paused");
      const again = await runRelm(["schedule", "pause", job], { env: rig.env });
      expect(again.stderr).toBe("no active scheduled jobs to pause\n");
      const resume = await runRelm(["schedule", "resume", job], { env: rig.env });
      expect(resume.stderr).toContain(`resumed ${job}`);

      const cancel = await runRelm(["schedule", "cancel", job], { env: rig.env });
      expect(cancel.code).toBe(0);
      expect((await runRelm(["schedule", "list"], { env: rig.env })).stdout).toContain("no scheduled jobs");
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
      // The waker sees no jobs left and exits (shutdown waits for that too; this holds when it failed).
      await poll(async () => ((await wakerRunning(rig.home)) ? undefined : true), 30_000);
    }
  });

  it("explains a bad schedule", async () => {
    const rig = await startRig("openai", { script: [{ text: "ok" }] });
    await runRelm(["run", "hello"], { env: rig.env, cwd: rig.cwd });
    const id = onlyJournal(rig.home).lines[0]?.id as string;
    // Every bad timing is a bad flag value, exit 2 as "--every abc" was: "--every 0s" (under the
    // shortest interval), a cron that cannot match and an --at that is not a time exited 1.
    for (const [flag, value] of [
      ["--every", "0s"],
      ["--every", "500ms"],
      ["--every", "abc"],
      ["--cron", "61 * * * *"],
      ["--at", "next tuesday"],
    ] as const) {
      const bad = await runRelm(["schedule", "add", id, flag, value, "x"], { env: rig.env });
      expect(bad.code, bad.stderr).toBe(2);
      expect(bad.stderr).toMatch(new RegExp(`^relm: (invalid )?${flag} "?${value.replace(/\*/g, "\\*")}`));
    }
    const both = await runRelm(
      ["schedule", "add", id, "--every", "1m", "--at", "2030-01-01T00:00:00Z", "x"],
      {
        env: rig.env,
      },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/exactly one of --every, --at, --cron/);
  });

  it("a zone-less --at and a --cron keep the zone they were added in, whichever zone reads them", async () => {
    // A job is read by every process that runs (the host delivering it, the waker, relm schedule list),
    // each in its own TZ: the --at string was stored as typed and each reader parsed it in its own zone,
    // and a cron ran in each reader's local time, so the same job fell due at different instants.
    const rig = await startRig("openai", { script: [{ text: "ok" }] });
    await runRelm(["run", "hello"], { env: rig.env, cwd: rig.cwd });
    const id = onlyJournal(rig.home).lines[0]?.id as string;
    const tokyo = { ...rig.env, TZ: "Asia/Tokyo" };
    const at = await runRelm(["schedule", "add", id, "--at", "2031-01-01T09:00", "at nine"], { env: tokyo });
    expect(at.code, at.stderr).toBe(0);
    const cron = await runRelm(["schedule", "add", id, "--cron", "0 9 * * *", "cron nine"], { env: tokyo });
    expect(cron.code, cron.stderr).toBe(0);
    for (const zone of ["Asia/Tokyo", "UTC", "America/New_York"]) {
      const list = await runRelm(["schedule", "list"], { env: { ...rig.env, TZ: zone } });
      const line = (prompt: string) => list.stdout.split("\n").find((l) => l.endsWith(prompt)) ?? "";
      // 09:00 in Tokyo is 00:00 UTC, read anywhere.
      expect(line("at nine"), zone).toMatch(/next 2031-01-01T00:00:00\.000Z/);
      expect(line("cron nine"), zone).toMatch(/Asia\/Tokyo\).*next \d{4}-\d\d-\d\dT00:00:00\.000Z/);
    }
  });

  it("refuses an --at time that has passed, naming it and now; nothing is scheduled", async () => {
    const rig = await startRig("openai", { script: [{ text: "ok" }] });
    await runRelm(["run", "hello"], { env: rig.env, cwd: rig.cwd });
    const id = onlyJournal(rig.home).lines[0]?.id as string;
    const past = await runRelm(["schedule", "add", id, "--at", "2020-03-01T09:00:00Z", "x"], {
      env: rig.env,
    });
    expect(past.code, past.stderr).toBe(2);
    expect(past.stderr).toMatch(/--at "2020-03-01T09:00:00Z" is in the past/);
    expect(past.stderr).toMatch(/now is \d{4}-\d\d-\d\dT/);
    expect(past.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect((await runRelm(["schedule", "list"], { env: rig.env })).stdout).toContain("no scheduled jobs");
  });

  it("a session the waker cannot revive (its journal deleted) is given up at its first try, said in its log", async () => {
    // Every revival failed (no journal to resume) and the waker swallowed the error: it tried again
    // every 15 s for as long as it ran, wrote nothing in waker.log, and the job stayed listed as due.
    // A journal that is gone cannot come back by waiting: given up at once, as a deleted folder is. A
    // revival that fails for another reason is tried three times (test/host/waker.test.ts).
    const rig = await startRig("openai", { script: [{ text: "ok" }] });
    try {
      const first = await runRelm(["run", "--json", "TASK: forgotten"], { env: rig.env, cwd: rig.cwd });
      expect(first.code, first.stderr).toBe(0);
      const id = (JSON.parse(first.stdout.split("\n")[0] as string) as { id: string }).id;
      const add = await runRelm(["schedule", "add", id, "--every", "1s", "check in"], { env: rig.env });
      expect(add.code, add.stderr).toBe(0);
      rmSync(join(rig.home, "sessions", id, "journal.jsonl"));
      const log = () => readFileSync(join(rig.home, "waker.log"), "utf8");
      await until(
        () => (log().includes(`paused 1 scheduled job(s) of session ${id}`) ? true : undefined),
        120_000,
      );
      expect(log()).not.toMatch(/could not be revived \(\d of 3\)/);
      expect(log()).toMatch(
        new RegExp(
          `relm waker: session ${id} cannot be revived: its journal .*journal\\.jsonl no longer exists`,
        ),
      );
      const list = await runRelm(["schedule", "list"], { env: rig.env });
      expect(list.stdout).toMatch(/paused since \S+ \(the waker: its journal no longer exists\)/);
      await poll(async () => ((await wakerRunning(rig.home)) ? undefined : true), 30_000);
      expect(await wakerRunning(rig.home)).toBe(false);
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
    }
  }, 200_000);

  it("a session whose folder was deleted: send says so, the waker gives it up once and keeps serving the others", async () => {
    // Reviving it spawned its host in a folder that is gone: an unhandled 'error' event ("spawn
    // /usr/bin/node ENOENT") with a stack trace from relm send, and the same crash ended the waker, so
    // no other session's schedule fired again.
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: gone": [{ text: "ok" }],
        "TASK: kept": [{ text: "ready" }, ...Array.from({ length: 20 }, () => ({ text: "tick" }))],
      }),
    });
    try {
      const gone = join(rig.cwd, "project that goes");
      mkdirSync(gone);
      const first = await runRelm(["run", "--json", "TASK: gone"], { env: rig.env, cwd: gone });
      expect(first.code, first.stderr).toBe(0);
      const goneId = (JSON.parse(first.stdout.split("\n")[0] as string) as { id: string }).id;
      rmSync(gone, { recursive: true });

      const send = await runRelm(["send", goneId, "hello"], { env: rig.env });
      expect(send.code, send.stderr).toBe(1);
      expect(send.stderr).toBe(
        `relm: session ${goneId} cannot be continued in its folder ${gone}: it no longer exists (moved or deleted); recreate it, or continue the session in another folder with relm run --resume ${goneId}\n`,
      );

      const kept = (
        await runRelm(["run", "--detach", "TASK: kept"], { env: rig.env, cwd: rig.cwd })
      ).stdout.trim();
      await runRelm(["stop", kept], { env: rig.env });
      // Both due at once: the waker revives the gone one (which fails) and the kept one.
      for (const id of [goneId, kept]) {
        const add = await runRelm(["schedule", "add", id, "--every", "1s", "check in"], { env: rig.env });
        expect(add.code, add.stderr).toBe(0);
      }
      const ticked = () =>
        readFileSync(join(rig.home, "sessions", kept, "journal.jsonl"), "utf8").includes("check in");
      await until(() => (ticked() ? true : undefined), 60_000).catch(() => undefined);
      expect(ticked()).toBe(true);
      expect(await wakerRunning(rig.home)).toBe(true);
      expect(readFileSync(join(rig.home, "waker.log"), "utf8")).not.toContain("Unhandled");
      // The gone one is given up, not retried every 15 s: its jobs are paused, said once in the log.
      const log = () => readFileSync(join(rig.home, "waker.log"), "utf8");
      await until(() => (log().includes(`session ${goneId};`) ? true : undefined), 60_000);
      expect(log()).toContain(`relm waker: session ${goneId} cannot be continued in its folder ${gone}`);
      expect(log()).toContain(
        `paused 1 scheduled job(s) of session ${goneId}; relm schedule resume ${goneId}`,
      );
      const list = await runRelm(["schedule", "list"], { env: rig.env });
      const goneLine = list.stdout.split("\n").find((l) => l.includes(goneId));
      expect(goneLine).toMatch(/paused since .*its folder no longer exists/);
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
      await poll(async () => ((await wakerRunning(rig.home)) ? undefined : true), 30_000);
    }
  });
});
