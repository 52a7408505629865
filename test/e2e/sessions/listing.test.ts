// What `relm agents`, `relm status` and `relm shutdown` say of sessions (issue 10, item 8): spend over
// the session's whole life, across resumes; a live host whose last turn failed is still seen and stopped.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { processStartTime } from "../../../src/config/process.js";
import { writeState } from "../../../src/host/states/state.js";
import { Journal, newSessionId, sessionDir } from "../../../src/session/index.js";
import { listAgents, runRelm } from "../../support/cli.js";
import { onlyJournal, onlyJournalSoFar } from "../../support/journal.js";
import { byTask } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { pythonWaitForFile, until } from "../../support/wait.js";

const startRig = useRigs();

interface Listed {
  id: string;
  status: string;
  childrenAtWork?: number;
  live: boolean;
  tokens: number;
  cost: number | null;
}

function agents(rig: Rig): Promise<Listed[]> {
  return listAgents<Listed>(rig.env);
}

/** Tokens and cost of every spending event of the journal. */
function journalSpend(rig: Rig): { tokens: number; cost: number | null } {
  let tokens = 0;
  let cost: number | null = 0;
  for (const l of onlyJournal(rig.home).lines) {
    if (!["model_response", "llm_call", "compaction"].includes(l.type) || !l.usage) continue;
    const u = l.usage as { inputTokens: number; outputTokens: number };
    tokens += u.inputTokens + u.outputTokens;
    const c = (l.cost ?? null) as number | null;
    cost = cost === null || c === null ? null : cost + c;
  }
  return { tokens, cost };
}

async function runAndResume(rig: Rig): Promise<string> {
  const first = await runRelm(["run", "first part"], { env: rig.env, cwd: rig.cwd });
  expect(first.code, first.stderr).toBe(0);
  const [listed] = await agents(rig);
  const id = listed?.id as string;
  const before = listed?.tokens as number;
  expect(before).toBeGreaterThan(0);
  const again = await runRelm(["run", "--resume", id, "second part"], { env: rig.env, cwd: rig.cwd });
  expect(again.code, again.stderr).toBe(0);
  const [after] = await agents(rig);
  expect(after?.tokens).toBeGreaterThan(before);
  return id;
}

/** A session made i minutes after 2026-01-01 (so they sort by i), its journal open for more events. */
function oldSession(home: string, i: number): { id: string; created: string; j: Journal } {
  const id = newSessionId();
  const created = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
  const j = Journal.create(sessionDir(home, id), {
    id,
    created,
    cwd: home,
    title: `task ${i}`,
    provider: "openai",
    model: "m",
    relm: "test",
  });
  return { id, created, j };
}
describe("a damaged state.json", () => {
  it("is rebuilt from the journal: a finished session, detached or not, is listed as done", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "x = 1" }, { text: "all done" }, { text: "bye" }],
    });
    const run = await runRelm(["run", "finish it"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    const id = (await agents(rig))[0]?.id as string;
    const started = await runRelm(["run", "--detach", "--resume", id, "and again"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(started.code, started.stderr).toBe(0);
    await until(async () => ((await agents(rig))[0]?.status === "idle" ? true : undefined));
    expect((await runRelm(["stop", id], { env: rig.env })).code).toBe(0);
    // A torn write (a full disk, a crash of another tool): the file is not JSON, and the index is gone.
    writeFileSync(join(sessionDir(rig.home, id), "state.json"), '{"id": "');
    rmSync(join(rig.home, "index"), { recursive: true, force: true });
    const [listed] = await agents(rig);
    expect(listed?.id).toBe(id);
    expect(listed?.status).toBe("done");
  });
});

describe("relm agents after a resume", () => {
  it("counts the tokens of the whole session, and an unpriced model stays unpriced", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "print(6 * 7)" }, { text: "forty-two" }, { text: "resumed and done" }],
    });
    const id = await runAndResume(rig);
    const [listed] = await agents(rig);
    const spend = journalSpend(rig);
    expect(spend.cost).toBeNull();
    expect(listed).toMatchObject({ id, tokens: spend.tokens, cost: null });
    const table = await runRelm(["agents"], { env: rig.env });
    const row = table.stdout.split("\n").find((l) => l.startsWith(id)) ?? "";
    expect(row).toContain(String(spend.tokens));
    expect(row).toContain("unpriced");
    expect(row).not.toContain("$");
  });

  it("counts the cost of the whole session of a priced model", async () => {
    const rig = await startRig(
      "openai",
      { script: [{ code: "print(6 * 7)" }, { text: "forty-two" }, { text: "resumed and done" }] },
      { config: { prices: { scripted: { input: 1000, output: 2000 } } } },
    );
    await runAndResume(rig);
    const [listed] = await agents(rig);
    const spend = journalSpend(rig);
    expect(spend.cost).toBeGreaterThan(0);
    expect(listed?.tokens).toBe(spend.tokens);
    expect(listed?.cost).toBeCloseTo(spend.cost as number, 9);
  });
});

describe("relm agents after a budget stopped a request as it streamed", () => {
  it("counts the spend the run booked for that request, as the budget stop says", async () => {
    const rig = await startRig(
      "openai",
      { script: [{ endless: true }] },
      { config: { prices: { scripted: { input: 1, output: 2 } } } },
    );
    const run = await runRelm(["run", "--max-tokens", "3000", "talk forever"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(run.code, run.stderr).toBe(3);
    const lines = onlyJournal(rig.home).lines;
    expect(lines.find((l) => l.type === "model_error")).toMatchObject({ kind: "budget" });
    const stop = lines.find((l) => l.type === "budget_stop");
    const spent = stop?.spent as { tokens: number; cost: number };
    expect(spent.tokens).toBeGreaterThan(3000);
    const [listed] = await agents(rig);
    expect(listed?.tokens).toBe(spent.tokens);
    expect(listed?.cost).toBeCloseTo(spent.cost, 9);
  });
});

describe("a live host whose last turn failed", () => {
  it("is listed by relm status and stopped by relm shutdown", async () => {
    const rig = await startRig("openai", {
      script: [{ status: 400, body: '{"error":{"message":"this request cannot work"}}' }],
    });
    const started = await runRelm(["run", "--detach", "doomed"], { env: rig.env, cwd: rig.cwd });
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    await until(async () => {
      const s = (await agents(rig)).find((l) => l.id === id);
      return s?.status === "failed" ? s : undefined;
    }, 30_000);
    expect((await agents(rig)).find((l) => l.id === id)).toMatchObject({ status: "failed", live: true });
    const status = await runRelm(["status"], { env: rig.env });
    expect(status.stdout).toMatch(new RegExp(`^${id}\\s+failed`, "m"));
    const shutdown = await runRelm(["shutdown"], { env: rig.env });
    expect(shutdown.code, shutdown.stderr).toBe(0);
    expect(shutdown.stdout).toContain("stopped 1 of 1 live sessions");
    expect((await agents(rig)).find((l) => l.id === id)?.live).toBe(false);
    expect((await runRelm(["status"], { env: rig.env })).stdout).toContain("no live sessions");
  });
});

describe("a session whose own loop is idle while a background child works", () => {
  it("is listed as running, by relm agents and relm status, with its child at work; idle once the child ended", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: start one": [{ code: 'a = rlm.spawn("CHILD: wait for go")' }, { text: "started it" }],
        "CHILD: wait for go": [() => ({ code: pythonWaitForFile(go) }), { text: "went" }],
      }),
    });
    const go = join(rig.cwd, "go");
    const started = await runRelm(["run", "--detach", "ROOT: start one"], { env: rig.env, cwd: rig.cwd });
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    // The root's turn has ended (its answer is journaled) while its child waits for the file.
    await until(
      () => (onlyJournalSoFar(rig.home).some((l) => l.type === "final") ? true : undefined),
      30_000,
    );
    const working = await until(async () => {
      const s = (await agents(rig)).find((l) => l.id === id);
      return s?.childrenAtWork === 1 ? s : undefined;
    }, 30_000);
    expect(working.status).toBe("running");
    const table = await runRelm(["agents"], { env: rig.env });
    expect(table.stdout).toMatch(new RegExp(`^${id}\\s+running \\(1 background child at work\\)`, "m"));
    const status = await runRelm(["status"], { env: rig.env });
    expect(status.stdout).toMatch(new RegExp(`^${id}\\s+running`, "m"));
    writeFileSync(go, "");
    const idle = await until(async () => {
      const s = (await agents(rig)).find((l) => l.id === id);
      return s?.status === "idle" ? s : undefined;
    }, 30_000);
    expect(idle.childrenAtWork).toBeUndefined();
    expect((await runRelm(["shutdown"], { env: rig.env })).code).toBe(0);
  });
});

describe("relm agents with a long history", () => {
  it("shows the 20 newest and says how many are left out; --all, -a and --json list every one", async () => {
    const home = mkdtempSync(join(tmpdir(), "relm-many-"));
    try {
      const ids: string[] = []; // oldest first
      for (let i = 0; i < 25; i++) {
        const { id, j } = oldSession(home, i);
        j.append({ type: "final", text: "done", spent: { turns: 1, tokens: 0, elapsedMs: 1, cost: 0 } });
        j.close();
        ids.push(id);
      }
      const env = { ...process.env, RELM_HOME: home };
      const rowsOf = (out: string) => out.split("\n").filter((l) => /^[a-z0-9]{8}\s/.test(l));
      const table = await runRelm(["agents"], { env });
      expect(table.code, table.stderr).toBe(0);
      expect(rowsOf(table.stdout).map((l) => l.split(/\s+/)[0])).toEqual(ids.slice(5).reverse());
      expect(table.stdout).toContain("… and 5 older sessions: relm agents --all lists every one");
      for (const flag of ["--all", "-a"]) {
        const all = await runRelm(["agents", flag], { env });
        expect(rowsOf(all.stdout)).toHaveLength(25);
        expect(all.stdout).not.toContain("older sessions");
      }
      const json = await runRelm(["agents", "--json"], { env });
      expect(json.stdout.trim().split("\n")).toHaveLength(25);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("relm agents with recorded pids that other processes now have", () => {
  it("a session whose pid runs but started at another time is not maybe-live: it is hidden like any old one", async () => {
    const home = mkdtempSync(join(tmpdir(), "relm-reused-"));
    try {
      const started = processStartTime(process.pid);
      expect(started).toBeTypeOf("number"); // Linux: /proc/PID/stat
      const ids: string[] = []; // oldest first
      for (let i = 0; i < 26; i++) {
        const { id, created, j } = oldSession(home, i);
        j.append({ type: "user", text: "interrupted" });
        j.close();
        // The oldest six were interrupted in a host whose pid this test process has now: the oldest by
        // this very process (same start time), the next five by one that started earlier (pid reused).
        if (i < 6) {
          writeState(home, {
            id,
            title: `task ${i}`,
            cwd: home,
            created,
            status: "interrupted",
            lastActivity: created,
            tokens: 0,
            cost: null,
            pid: process.pid,
            pidStarted: i === 0 ? started : (started as number) - 1000 - i,
            detached: true,
          });
        }
        ids.push(id);
      }
      const env = { ...process.env, RELM_HOME: home };
      const table = await runRelm(["agents"], { env });
      expect(table.code, table.stderr).toBe(0);
      const rows = table.stdout.split("\n").filter((l) => /^[a-z0-9]{8}\s/.test(l));
      // The 20 newest, then the one whose host may still run (it is checked, and is not live); the five
      // with a reused pid are among the older ones left out.
      expect(rows.map((l) => l.split(/\s+/)[0])).toEqual([...ids.slice(6).reverse(), ids[0]]);
      expect(table.stdout).toContain("… and 5 older sessions");
      const json = await runRelm(["agents", "--json", "--all"], { env });
      const listed = json.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Listed);
      expect(listed).toHaveLength(26);
      expect(listed.filter((l) => l.live)).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
