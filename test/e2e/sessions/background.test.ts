import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionClient } from "../../../src/host/client.js";
import { RELM_BIN, runRelm, tempDir } from "../../support/cli.js";
import { type JournalLine, killOnlyHost, onlyJournal, onlyJournalSoFar } from "../../support/journal.js";
import { byTask } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { pythonWaitForFile, until } from "../../support/wait.js";

const startRig = useRigs();

const journalLines = (rig: Rig): JournalLine[] => onlyJournalSoFar(rig.home);

async function detach(rig: Rig, task: string, extra: string[] = []): Promise<string> {
  const result = await runRelm(["run", "--detach", ...extra, task], { env: rig.env, cwd: rig.cwd });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

async function agents(rig: Rig): Promise<{ id: string; status: string; live: boolean; pid: number }[]> {
  const result = await runRelm(["agents", "--json"], { env: rig.env });
  return result.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** Stops whatever the test left running, so the rig's no-orphans check sees a quiet machine. */
async function shutdown(rig: Rig): Promise<void> {
  await runRelm(["shutdown"], { env: rig.env });
}

describe("background sessions", () => {
  it("detach from a shell that exits; list, follow the logs to completion, attach to the finished session", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: in the background": [
          // Work that outlives the shell that started it (nothing below depends on how long it takes).
          { code: "import time\nfor i in range(3):\n    print('step', i, flush=True)\n    time.sleep(0.3)" },
          { text: "background work finished" },
        ],
      }),
    });
    try {
      // Started from a shell that exits as soon as relm has printed the id: the work goes on without it.
      const idFile = join(rig.cwd, "id.txt");
      const shell = spawn(
        "/bin/sh",
        [
          "-c",
          `"${process.execPath}" "${RELM_BIN}" run --detach "TASK: in the background" > "${idFile}"; exit 0`,
        ],
        {
          env: rig.env,
          cwd: rig.cwd,
        },
      );
      expect(await new Promise((r) => shell.on("close", r))).toBe(0);
      const id = readFileSync(idFile, "utf8").trim();
      expect(id).toMatch(/^[0-9a-z]{8}$/);
      const listed = (await agents(rig)).find((s) => s.id === id);
      expect(listed?.live).toBe(true);
      expect(["running", "idle"]).toContain(listed?.status);
      expect(listed?.pid).not.toBe(process.pid);

      const logs = await runRelm(["logs", id, "--follow"], { env: rig.env });
      expect(logs.code).toBe(0);
      expect(logs.stdout).toContain("step 2");
      expect(logs.stdout).toContain("background work finished");

      await runRelm(["stop", id], { env: rig.env });
      expect((await agents(rig)).find((s) => s.id === id)?.status).toBe("done");
      const attach = await runRelm(["attach", id], { env: rig.env });
      expect(attach.stdout).toContain("for i in range(3)");
      expect(attach.stdout).toContain("step 0");
      expect(attach.stdout).toContain("background work finished");
    } finally {
      await shutdown(rig);
    }
  });

  it("logs --follow ends when an autonomous session's gates have run after its answer", async () => {
    const rig = await startRig("openai", {
      script: byTask({ "TASK: gated work": [{ text: "gated work answered" }] }),
    });
    try {
      const gate = join(rig.cwd, "gate-ran");
      // The gate runs after the answer, while the host still says "running"; then the host goes idle.
      const id = await detach(rig, "TASK: gated work", [
        "--autonomous",
        "--gate",
        `python3 -c "import time; time.sleep(1.5); open('${gate}', 'w').close()"`,
      ]);
      const logs = await runRelm(["logs", id, "--follow"], { env: rig.env, timeoutMs: 40_000 });
      expect(logs.code, logs.stderr).toBe(0);
      expect(logs.stdout).toContain("gated work answered");
      expect(existsSync(gate)).toBe(true);
      expect(journalLines(rig).some((l) => l.type === "autonomy_end")).toBe(true);
    } finally {
      await shutdown(rig);
    }
  });

  it("survives kill -9 of its host: shown as interrupted, resumed from the journal, nothing lost", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: long job": [
          { code: "progress = 41" },
          // The snapshot after the first cell is taken while the model answers, and given up if the next
          // cell comes first: the model answers once it is on disk, so that the journal has one to resume.
          async () => {
            await until(() => (journalLines(rig).some((l) => l.type === "snapshot") ? true : undefined));
            return { code: "import time\ntime.sleep(60)" };
          },
          (ctx) => ({
            code: `print('resumed with progress', progress + 1)  # ${ctx.lastToolResult?.length}`,
          }),
          (ctx) => ({ text: `final: ${ctx.lastToolResult?.trim()}` }),
        ],
      }),
    });
    try {
      const id = await detach(rig, "TASK: long job");
      // `progress` is snapshotted after the first cell; the second is running when the host dies.
      await until(() => (journalLines(rig).filter((l) => l.type === "cell").length === 2 ? true : undefined));
      const before = readFileSync(join(onlyJournal(rig.home).dir, "journal.jsonl"), "utf8");
      await killOnlyHost(rig.home);
      expect((await agents(rig)).find((s) => s.id === id)?.status).toBe("interrupted");

      const resumed = await runRelm(["run", "--resume", id.slice(0, 5)], { env: rig.env, cwd: rig.cwd });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout.trim()).toMatch(/^final: .*resumed with progress/);

      const after = readFileSync(join(onlyJournal(rig.home).dir, "journal.jsonl"), "utf8");
      expect(after.startsWith(before.slice(0, before.lastIndexOf("\n") + 1))).toBe(true);
      const lines = after
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as JournalLine);
      const resumedEvent = lines.find((l) => l.type === "resumed");
      expect(JSON.stringify(resumedEvent?.uncertain)).toMatch(/was running/);
      expect(
        lines.some((l) => l.type === "tool_skipped" && /may have run partly/.test(String(l.reason))),
      ).toBe(true);
      // The note the model got says what happened and that nothing was replayed.
      const resumeRequest = rig.model.requests.at(-2)?.rawBody ?? "";
      expect(resumeRequest).toContain("resumed in a new process");
    } finally {
      await shutdown(rig);
    }
  });

  it("serves two attached clients in order; a re-attaching client gets exactly what it missed", async () => {
    // Spread over ~1 s so that clients attach and leave while events still come (the replay is checked
    // exactly however the timing falls).
    const steps = Array.from({ length: 6 }, (_, i) => ({ code: `print(${i})`, delayMs: 150 }));
    const rig = await startRig("openai", {
      script: byTask({ "TASK: stream": [...steps, { text: "streamed", delayMs: 150 }] }),
    });
    try {
      const id = await detach(rig, "TASK: stream");
      const a = (await SessionClient.connect(rig.home, id)) as SessionClient;
      const b = (await SessionClient.connect(rig.home, id)) as SessionClient;
      const seenA: number[] = [];
      const seenB: number[] = [];
      a.onNotification((n) => {
        const e = n.params as { n?: number; agent?: string };
        if (n.method === "event" && e.n !== undefined && !e.agent) seenA.push(e.n);
      });
      let bGone = false;
      b.onNotification((n) => {
        const e = n.params as { n?: number; agent?: string };
        if (n.method === "event" && e.n !== undefined && !e.agent && !bGone) {
          seenB.push(e.n);
          if (seenB.length === 8) {
            bGone = true;
            b.close();
          }
        }
      });
      await a.call("attach", { after: 0 });
      await b.call("attach", { after: 0 });
      await until(() => (bGone ? true : undefined));
      const again = (await SessionClient.connect(rig.home, id)) as SessionClient;
      const missed: number[] = [];
      again.onNotification((n) => {
        const e = n.params as { n?: number; agent?: string };
        if (n.method === "event" && e.n !== undefined && !e.agent) missed.push(e.n);
      });
      await again.call("attach", { after: seenB.at(-1) });
      await until(() => (journalLines(rig).some((l) => l.type === "final") ? true : undefined));
      // The last events reach the clients after they reach the journal: wait for both to have them all.
      const events = () => journalLines(rig).length - 1;
      await until(() =>
        seenA.length >= events() && seenB.length + missed.length >= events() ? true : undefined,
      );
      const total = events();
      expect(seenA).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      expect([...seenB, ...missed]).toEqual(seenA);
      a.close();
      again.close();
    } finally {
      await shutdown(rig);
    }
  });

  it("hands a detached host its options in a spec file (read once, removed), not on its command line", async () => {
    const rig = await startRig("openai", {
      script: byTask({ "TASK: spec": [{ code: "import time\ntime.sleep(60)" }, { text: "done" }] }),
    });
    try {
      const id = await detach(rig, "TASK: spec", ["--max-turns", "7", "--cell-timeout", "90", "--goal", "g"]);
      const dir = join(rig.home, "sessions", id);
      // The options reached the host: it remembers them for the session's later hosts.
      await until(() => existsSync(join(dir, "flags.json")));
      expect(JSON.parse(readFileSync(join(dir, "flags.json"), "utf8"))).toEqual({
        maxTurns: "7",
        cellTimeout: "90",
      });
      const [host] = await agents(rig);
      const argv = readFileSync(`/proc/${host?.pid}/cmdline`, "utf8").split("\0");
      expect(argv).toContain("--spec");
      for (const word of ["--max-turns", "--cell-timeout", "--goal", "7", "90"])
        expect(argv).not.toContain(word);
      expect(readdirSync(dir).filter((f) => f.startsWith("spec-"))).toEqual([]);
    } finally {
      await shutdown(rig);
    }
  });

  it("keeps run/ and its sockets user-only", async () => {
    const rig = await startRig("openai", {
      // A long cell keeps the session live while its files are looked at; shutdown ends it.
      script: byTask({ "TASK: modes": [{ code: "import time\ntime.sleep(30)" }, { text: "never" }] }),
    });
    try {
      const id = await detach(rig, "TASK: modes");
      expect(statSync(join(rig.home, "run")).mode & 0o777).toBe(0o700);
      const socket = statSync(join(rig.home, "run", `${id}.sock`));
      expect(socket.isSocket()).toBe(true);
      expect(socket.mode & 0o777).toBe(0o600);
      expect(statSync(join(rig.home, "sessions", id)).mode & 0o777).toBe(0o700);
      expect(statSync(join(rig.home, "sessions", id, "journal.jsonl")).mode & 0o777).toBe(0o600);
    } finally {
      await shutdown(rig);
    }
  });
});

describe("relm logs and attach", () => {
  it("show what each turn answers: the task, a message sent later, one read during a turn", async () => {
    // The plain views printed the answers and cells but never the messages they answered, so a
    // background session's log (relm send, heartbeat ticks, other agents) read as answers to nothing.
    const go = join(tempDir("relm-go-").path, "go");
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: shown": [
          { text: "first answer" },
          { code: `${pythonWaitForFile(go)}\nprint("released")` },
          { text: "second answer" },
        ],
      }),
    });
    const id = await detach(rig, "TASK: shown");
    try {
      await until(() => (journalLines(rig).some((l) => l.type === "final") ? true : undefined), 60_000);
      expect(
        (await runRelm(["send", id, "now the ünïcode part\nwith a second line"], { env: rig.env })).code,
      ).toBe(0);
      await until(() => (journalLines(rig).some((l) => l.type === "cell") ? true : undefined), 60_000);
      expect((await runRelm(["send", id, "a note while you work"], { env: rig.env })).code).toBe(0);
      writeFileSync(go, "");
      await until(
        () => (journalLines(rig).filter((l) => l.type === "final").length >= 2 ? true : undefined),
        60_000,
      );
      // attach follows a live session until it ends: look at it once the session is stopped.
      const logs = await runRelm(["logs", id], { env: rig.env });
      await runRelm(["stop", id], { env: rig.env });
      const attach = await runRelm(["attach", id], { env: rig.env });
      for (const { stdout: out } of [logs, attach]) {
        expect(out).toContain("› TASK: shown\n");
        expect(out).toContain("› now the ünïcode part\n  with a second line\n");
        expect(out).toContain("✉ user: a note while you work\n");
        expect(out.indexOf("› TASK: shown")).toBeLessThan(out.indexOf("first answer"));
        expect(out.indexOf("first answer")).toBeLessThan(out.indexOf("› now the ünïcode part"));
      }
    } finally {
      await runRelm(["stop", id], { env: rig.env });
    }
  }, 180_000);
});

describe("relm send refused by the host", () => {
  it("a message over 16 KB: one relm: line and exit 1, not an internal error, and the command ends", async () => {
    // The host's refusal reached the CLI as an RpcError: "relm: internal error: RpcError: message too
    // long" with a stack trace, and the command then hung, its connection to the host left open.
    const rig = await startRig("openai", { script: byTask({ "TASK: idle": [{ text: "ready" }] }) });
    const id = await detach(rig, "TASK: idle");
    try {
      await until(async () =>
        (await agents(rig)).find((a) => a.id === id)?.status === "idle" ? true : undefined,
      );
      const result = await runRelm(["send", id, "x".repeat(20_000)], { env: rig.env, timeoutMs: 30_000 });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toBe("relm: message too long: at most 16384 bytes\n");
    } finally {
      await runRelm(["stop", id], { env: rig.env });
    }
  });

  it("to a session that is not running: a blank message or one over 16 KB starts nothing", async () => {
    // `relm send ID "$MSG"` with MSG unset revived the session and spent a model turn on an empty
    // message (as it did on a live one), and a message the live host refuses as too long was taken
    // when the session had to be revived for it: the check was the host's, and a revival skips it.
    const rig = await startRig("openai", { script: [{ text: "first answer" }] });
    const first = await runRelm(["run", "--json", "TASK: saved"], { env: rig.env, cwd: rig.cwd });
    expect(first.code, first.stderr).toBe(0);
    const id = (JSON.parse(first.stdout.split("\n")[0] as string) as { id: string }).id;
    const journal = join(rig.home, "sessions", id, "journal.jsonl");
    const before = readFileSync(journal, "utf8");
    const blank = await runRelm(["send", id, "  "], { env: rig.env, timeoutMs: 30_000 });
    expect(blank.code, blank.stderr).toBe(2);
    expect(blank.stderr).toBe(`relm: the message is blank: relm send ${id} "what to tell it"\n`);
    const long = await runRelm(["send", id, "x".repeat(20_000)], { env: rig.env, timeoutMs: 30_000 });
    expect(long.code, long.stderr).toBe(1);
    expect(long.stderr).toBe("relm: message too long: at most 16384 bytes\n");
    expect((await agents(rig)).find((a) => a.id === id)?.live).toBe(false);
    expect(readFileSync(journal, "utf8")).toBe(before);
    expect(rig.model.requests).toHaveLength(1);
  });
});

describe("a relative RELM_HOME", () => {
  it("names the same home in every process relm starts, wherever that process runs", async () => {
    // A revived host runs in its session's folder: given RELM_HOME=home as it was typed, it made a new,
    // empty home inside the project and failed ("No session matches"), and so did the waker's revivals.
    const rig = await startRig("openai", {
      script: byTask({ "TASK: relative": [{ text: "one" }, { text: "two" }] }),
    });
    const project = join(rig.cwd, "project");
    mkdirSync(project);
    // The session is started in the project (RELM_HOME=../home), and continued from the folder above
    // (RELM_HOME=home): the same home, named from two places.
    const first = await runRelm(["run", "--json", "TASK: relative"], {
      env: { ...rig.env, RELM_HOME: "../home" },
      cwd: project,
    });
    expect(first.code, first.stderr).toBe(0);
    const id = (JSON.parse(first.stdout.split("\n")[0] as string) as { id: string }).id;
    const journal = join(rig.cwd, "home", "sessions", id, "journal.jsonl");
    expect(existsSync(journal)).toBe(true);
    const relative = { ...rig.env, RELM_HOME: "home" };
    const send = await runRelm(["send", id, "again"], { env: relative, cwd: rig.cwd });
    expect(send.code, send.stderr).toBe(0);
    await until(() => (readFileSync(journal, "utf8").includes('"two"') ? true : undefined), 60_000).catch(
      () => undefined,
    );
    expect(readFileSync(journal, "utf8")).toContain('"two"');
    expect(existsSync(join(project, "home"))).toBe(false);
    await runRelm(["stop", id], { env: relative, cwd: rig.cwd });
  });
});

describe("relm doctor --fix", () => {
  it("finds and repairs a stale socket and a half-written journal line", async () => {
    const rig = await startRig("openai", { script: [{ text: "ok" }], models: ["scripted"] });
    await runRelm(["run", "hello"], { env: rig.env, cwd: rig.cwd });
    const { dir } = onlyJournal(rig.home);
    appendFileSync(join(dir, "journal.jsonl"), '{"n":99,"t":"2026-');
    mkdirSync(join(rig.home, "run"), { recursive: true, mode: 0o700 });
    const stale = join(rig.home, "run", "zzzzzzzz.sock");
    spawnSync("python3", [
      "-c",
      `import socket; socket.socket(socket.AF_UNIX).bind(${JSON.stringify(stale)})`,
    ]);
    expect(statSync(stale).isSocket()).toBe(true);

    const check = await runRelm(["doctor"], { env: rig.env });
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/stale socket .*zzzzzzzz\.sock/);
    expect(check.stdout).toMatch(/half-written/);

    const fix = await runRelm(["doctor", "--fix"], { env: rig.env });
    expect(fix.stdout).toMatch(/fixed sessions {2}stale socket/);
    expect(fix.stdout).toMatch(/fixed sessions {2}session \w+: the journal's last line is half-written/);
    expect(existsSync(stale)).toBe(false);
    const text = readFileSync(join(dir, "journal.jsonl"), "utf8");
    expect(text.endsWith("}\n")).toBe(true);
    for (const line of text.trim().split("\n")) JSON.parse(line);
    expect((await runRelm(["doctor"], { env: rig.env })).stdout).toMatch(
      /no stale sockets, orphan kernels, torn or damaged journals/,
    );
  });
});
