import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runRelm } from "../../support/cli.js";
import { type JournalLine, killOnlyHost, onlyJournalSoFar } from "../../support/journal.js";
import { byTask } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

// The built module: the hosts it revives run the built CLI beside it (dist/cli/relm.cjs).
const { SessionHandle } = (await import(
  join(ROOT, "dist/host/session-handle.js")
)) as typeof import("../../../src/host/session-handle.js");

const journalLines = (rig: Rig): JournalLine[] => onlyJournalSoFar(rig.home);

/** Kills the session's host with SIGKILL while its second cell runs, and waits until it is gone. */
async function killMidCell(rig: Rig): Promise<void> {
  await until(() => (journalLines(rig).filter((l) => l.type === "cell").length === 2 ? true : undefined));
  await killOnlyHost(rig.home);
}

const answerLast = (ctx: { lastUserText?: string }) => ({ text: `answered: ${ctx.lastUserText ?? ""}` });

describe("a killed session resumed by the person's next message", () => {
  it("runs that message as the turn, the resume note with it, and no continue-turn first", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: long job": [
          { code: "progress = 41" },
          { code: "import time\ntime.sleep(60)" },
          answerLast,
          answerLast,
        ],
      }),
    });
    try {
      const started = await runRelm(["run", "--detach", "TASK: long job"], { env: rig.env, cwd: rig.cwd });
      expect(started.code, started.stderr).toBe(0);
      const id = started.stdout.trim();
      await killMidCell(rig);
      const requestsBefore = rig.model.requests.length;

      // The terminal UI's way: bring the host back, then send what the person typed.
      const handle = new SessionHandle({ home: rig.home, id, env: rig.env });
      await handle.revive({ spec: { interactive: true } });
      await handle.send("what did you find?");
      await until(
        () =>
          journalLines(rig).some((l) => l.type === "final" && /what did you find/.test(String(l.text)))
            ? true
            : undefined,
        60_000,
      );
      handle.close();

      const lines = journalLines(rig);
      const resumedAt = lines.findIndex((l) => l.type === "resumed");
      expect(resumedAt).toBeGreaterThan(0);
      const users = lines.slice(resumedAt).filter((l) => l.type === "user");
      // One message since the resume: the person's, with the resume note in front of it.
      expect(users).toHaveLength(1);
      expect(String(users[0]?.text)).toMatch(/^\[relm\] This session was resumed[\s\S]*what did you find\?$/);
      // One model call, the person's, and the resume note travelled with it.
      const calls = rig.model.requests.slice(requestsBefore);
      expect(calls).toHaveLength(1);
      expect(calls[0]?.rawBody).toContain("resumed in a new process");
      expect(calls[0]?.rawBody).toContain("what did you find?");
      expect(calls[0]?.rawBody).not.toContain("Continue the task where you left off");
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("relm run --detach --resume without a task still continues the unfinished work at once", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: long job": [{ code: "progress = 41" }, { code: "import time\ntime.sleep(60)" }, answerLast],
      }),
    });
    try {
      const started = await runRelm(["run", "--detach", "TASK: long job"], { env: rig.env, cwd: rig.cwd });
      expect(started.code, started.stderr).toBe(0);
      const id = started.stdout.trim();
      await killMidCell(rig);
      const resumed = await runRelm(["run", "--detach", "--resume", id], { env: rig.env, cwd: rig.cwd });
      expect(resumed.code, resumed.stderr).toBe(0);
      await until(
        () =>
          journalLines(rig).some((l) => l.type === "final" && /Continue the task/.test(String(l.text)))
            ? true
            : undefined,
        60_000,
      );
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
    }
  });
});
