// A journal damaged in the middle (issue 10, item 7): every command that reads it says where and points
// to `relm doctor`; `relm agents` marks the session; doctor says what is lost and how to recover, and
// --fix keeps a copy and cuts the journal before the damage so the session can be resumed.

import { existsSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CliResult, runRelm } from "../../support/cli.js";
import { byTask } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";

const startRig = useRigs();

async function sessionWithCells(
  rig: Rig,
  task: string,
): Promise<{ id: string; dir: string; lines: string[] }> {
  const run = await runRelm(["run", "--json", task], { env: rig.env, cwd: rig.cwd });
  expect(run.code, run.stderr).toBe(0);
  const id = (JSON.parse(run.stdout.split("\n")[0] as string) as { id: string }).id;
  const dir = join(rig.home, "sessions", id);
  const lines = readFileSync(join(dir, "journal.jsonl"), "utf8").split("\n").slice(0, -1);
  return { id, dir, lines };
}

/** Replaces line `n` (1-based) of the journal with bytes that are not JSON, as a bad disk block would. */
function damageLine(dir: string, lines: string[], n: number): void {
  const damaged = lines.map((l, i) => (i === n - 1 ? `${l.slice(0, 15)}\u0000\u0000garbage` : l));
  writeFileSync(join(dir, "journal.jsonl"), `${damaged.join("\n")}\n`);
}

function agentsJson(result: CliResult): { id: string; status: string; damaged?: { line?: number } }[] {
  return result.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const script = byTask({
  "TASK: one": [{ code: "x = 1" }, { code: "print(x + 1)" }, { text: "first done" }],
  "TASK: two": [{ code: "y = 2" }, { text: "second done" }],
});

describe("a journal damaged in the middle", () => {
  it("is named by every reader, marked by agents, and recovered by doctor --fix", async () => {
    const rig = await startRig("openai", { script });
    const { id, dir, lines } = await sessionWithCells(rig, "TASK: one");
    expect(lines.length).toBeGreaterThan(8);
    damageLine(dir, lines, 5);
    const path = join(dir, "journal.jsonl");
    const message = `relm: ${path}:5: invalid JSON; the journal is damaged there: \`relm doctor\` says how to recover it\n`;

    // agents reads no journal (state.json answers), so it cannot know yet.
    expect(agentsJson(await runRelm(["agents", "--json"], { env: rig.env }))[0]?.damaged).toBeUndefined();
    for (const args of [
      ["logs", id],
      ["export", id],
      ["attach", id],
      ["run", "--resume", id, "again please"],
    ]) {
      const result = await runRelm(args, { env: rig.env, cwd: rig.cwd });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(1);
      expect(result.stderr).toBe(message);
    }
    // The first reader left a note: now agents marks it, in both forms.
    const listed = agentsJson(await runRelm(["agents", "--json"], { env: rig.env }));
    expect(listed[0]).toMatchObject({ id, damaged: { line: 5, reason: "invalid JSON" } });
    const table = await runRelm(["agents"], { env: rig.env });
    expect(table.stdout).toMatch(new RegExp(`^${id} +damaged `, "m"));
    expect(table.stdout).toContain(`damaged journal: ${id}; relm doctor says where and how to recover\n`);

    const check = await runRelm(["doctor"], { env: rig.env });
    expect(check.code).toBe(1);
    const lost = lines.length - 4;
    expect(check.stdout).toContain(
      `FAIL  sessions  session ${id}: the journal (${path}) is damaged at line 5: invalid JSON; ${lost} lines ` +
        "from there on cannot be read, so the session cannot be resumed, attached to or exported " +
        "(relm doctor --fix would keep a copy as journal.jsonl.damaged-TIME and cut the journal before line 5, " +
        "keeping its first 3 events (to keep more, mend line 5 of the copy by hand and put it back))\n",
    );

    const fix = await runRelm(["doctor", "--fix"], { env: rig.env });
    expect(fix.stdout).toMatch(/fixed sessions {2}session \w+: the journal \(.*\) is damaged at line 5/);
    const original = `${[...lines.slice(0, 4), `${(lines[4] as string).slice(0, 15)}\u0000\u0000garbage`, ...lines.slice(5)].join("\n")}\n`;
    const backups = readdirSync(dir).filter((f) => f.startsWith("journal.jsonl.damaged-"));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dir, backups[0] as string), "utf8")).toBe(original);
    expect(statSync(join(dir, backups[0] as string)).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, "utf8")).toBe(`${lines.slice(0, 4).join("\n")}\n`);
    expect(existsSync(join(dir, "journal-damage.json"))).toBe(false);

    const after = agentsJson(await runRelm(["agents", "--json"], { env: rig.env }));
    expect(after[0]).toMatchObject({ id, status: "interrupted" });
    expect(after[0]?.damaged).toBeUndefined();
    expect((await runRelm(["doctor"], { env: rig.env })).stdout).toContain(
      "ok    sessions  no stale sockets, orphan kernels, torn or damaged journals\n",
    );
    // The session goes on from the last intact event.
    const resumed = await runRelm(["run", "--resume", id, "again please"], { env: rig.env, cwd: rig.cwd });
    expect(resumed.code, resumed.stderr).toBe(0);
    // The conversation is the task's again from the cut, so the task's script answers it.
    expect(resumed.stdout).toBe("first done\n");
    const types = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types).toContain("resumed");
    expect(types.filter((t) => t !== "notification").at(-1)).toBe("final");
  }, 240_000); // ~15 relm processes one after another: past the default 60 s on a loaded machine

  it("is marked by agents from the tail it reads when no state says otherwise", async () => {
    const rig = await startRig("openai", { script });
    const { id, dir, lines } = await sessionWithCells(rig, "TASK: two");
    damageLine(dir, lines, lines.length - 1); // not the last line: that would be a torn write
    forgetSummary(rig.home, dir);
    const listed = agentsJson(await runRelm(["agents", "--json"], { env: rig.env }));
    expect(listed[0]).toMatchObject({ id, status: "interrupted", damaged: { reason: "invalid JSON" } });
  });

  it("cannot be cut when the header itself is damaged: doctor says what to do by hand", async () => {
    const rig = await startRig("openai", { script });
    const { id, dir, lines } = await sessionWithCells(rig, "TASK: two");
    damageLine(dir, lines, 1);
    forgetSummary(rig.home, dir);
    const listed = agentsJson(await runRelm(["agents", "--json"], { env: rig.env }));
    expect(listed[0]).toMatchObject({ id, damaged: { line: 1 } });
    const fix = await runRelm(["doctor", "--fix"], { env: rig.env });
    expect(fix.code).toBe(1);
    expect(fix.stdout).toContain(
      `FAIL  sessions  session ${id}: the journal (${join(dir, "journal.jsonl")}) is damaged at line 1: first line is not a journal header;`,
    );
    expect(fix.stdout).toContain(
      `(by hand: nothing before the header to keep: restore the file from a backup, or move ${dir} away)`,
    );
    expect(readdirSync(dir).some((f) => f.startsWith("journal.jsonl.damaged-"))).toBe(false);
  });
});

/** No summary says otherwise: neither the session's state.json nor the listing index (index/states.jsonl). */
function forgetSummary(home: string, dir: string): void {
  unlinkSync(join(dir, "state.json"));
  rmSync(join(home, "index", "states.jsonl"), { force: true });
}
