// relm shutdown with scheduled sessions: nothing of relm's may run afterwards (the waker used to revive
// every scheduled session within seconds); the schedules are kept, paused, and say how to resume.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { byTask } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { poll, until } from "../../support/wait.js";

const startRig = useRigs();

/** Every process started with this RELM_HOME: hosts, the waker, kernels, templates. */
function relmProcesses(home: string): string[] {
  const marker = `\0RELM_HOME=${home}\0`;
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue; // exited, not yet reaped
      if (`\0${readFileSync(`/proc/${entry}/environ`, "utf8")}`.includes(marker)) {
        const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim();
        found.push(`${entry} ${cmd}`);
      }
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return found;
}

/** The schedule's messages that reached a session's journal. */
function ticks(home: string, id: string): string[] {
  const text = readFileSync(join(home, "sessions", id, "journal.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; text?: string })
    .filter((e) => e.type === "user" && String(e.text).includes("[every 1s] tick"))
    .map((e) => String(e.text));
}

describe.skipIf(process.platform !== "linux")("relm shutdown and schedules", () => {
  it("leaves nothing running, pauses the jobs (list and status say so), and schedule resume restarts them", async () => {
    const answers = Array.from({ length: 60 }, (_, i) => ({ text: `answer ${i}` }));
    const rig = await startRig("openai", {
      script: byTask({ "TASK: one": answers, "TASK: two": answers, "TASK: three": answers }),
    });
    const relm = (args: string[]) => runRelm(args, { env: rig.env, cwd: rig.cwd });
    try {
      const ids: string[] = [];
      for (const name of ["one", "two", "three"]) {
        const run = await relm(["run", "--detach", `TASK: ${name}`]);
        expect(run.code, run.stderr).toBe(0);
        const id = run.stdout.trim();
        ids.push(id);
        const add = await relm(["schedule", "add", id, "--every", "1s", "tick"]);
        expect(add.code, add.stderr).toBe(0);
      }
      for (const id of ids) await until(() => (ticks(rig.home, id).length > 0 ? true : undefined), 30_000);

      const down = await relm(["shutdown"]);
      expect(down.code, down.stderr).toBe(0);
      expect(down.stdout).toContain("stopped 3 of 3 live sessions");
      expect(down.stdout).toContain(
        "paused 3 scheduled job(s) of 3 session(s); relm schedule resume restarts them",
      );
      expect(relmProcesses(rig.home)).toEqual([]);
      const counts = ids.map((id) => ticks(rig.home, id).length);
      // Several ticks fall due meanwhile: no host, waker or kernel comes back, and no tick is delivered.
      expect(await poll(() => (relmProcesses(rig.home).length > 0 ? true : undefined), 4000)).toBeUndefined();
      expect(ids.map((id) => ticks(rig.home, id).length)).toEqual(counts);

      const list = await relm(["schedule", "list"]);
      expect(list.stdout.match(/paused since \S+ \(relm shutdown\)/g)).toHaveLength(3);
      expect(list.stdout).toContain("3 scheduled job(s) paused (relm shutdown");
      expect(list.stdout).toContain("relm schedule resume [JOB|SESSION] restarts them");
      const status = await relm(["status"]);
      expect(status.stdout).toContain("no live sessions");
      expect(status.stdout).toContain("3 scheduled job(s); waker not running\n");
      expect(status.stdout).toContain("relm schedule resume");
      // Listing and status start nothing either.
      expect(relmProcesses(rig.home)).toEqual([]);

      const resumedAt = Date.now();
      const resume = await relm(["schedule", "resume"]);
      expect(resume.code, resume.stderr).toBe(0);
      expect(resume.stderr.match(/^resumed j/gm)).toHaveLength(3);
      // The waker revives each session for its next tick, which owes nothing for the pause: it stands
      // at most for the ticks since the resume (a revival slower than 1 s merges those, as always).
      for (const [i, id] of ids.entries()) {
        const after = await until(() => {
          const all = ticks(rig.home, id);
          return all.length > (counts[i] ?? 0) ? all : undefined;
        }, 30_000);
        const merged = Number(/stands for all (\d+)/.exec(after[counts[i] ?? 0] ?? "")?.[1] ?? 1);
        expect(merged).toBeLessThanOrEqual((Date.now() - resumedAt) / 1000 + 1);
      }
      expect((await relm(["schedule", "list"])).stdout).not.toContain("paused");
    } finally {
      const down = await relm(["shutdown"]);
      expect(down.code, down.stderr).toBe(0);
      expect(relmProcesses(rig.home)).toEqual([]);
    }
  }, 180_000);
});
