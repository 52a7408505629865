import { readFileSync } from "node:fs";
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
    const bad = await runRelm(["schedule", "add", id, "--cron", "61 * * * *", "x"], { env: rig.env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--cron "61 \* \* \* \*"/);
    const both = await runRelm(
      ["schedule", "add", id, "--every", "1m", "--at", "2030-01-01T00:00:00Z", "x"],
      {
        env: rig.env,
      },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/exactly one of --every, --at, --cron/);
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
});
