import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { projectSessions } from "../../../src/learning/skills/skill-sources.js";
import { tempDir } from "../../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function dirs() {
  const home = tempDir("relm-mine-home-");
  const project = tempDir("relm-mine-project-");
  const other = tempDir("relm-mine-other-");
  cleanups.push(home.cleanup, project.cleanup, other.cleanup);
  mkdirSync(join(project.path, ".relm"));
  mkdirSync(join(project.path, "sub"));
  return { home: home.path, project: project.path, other: other.path };
}

/** A journal with a header and `events` (numbered from 1). */
function journal(dir: string, header: { id: string; cwd: string; created: string }, events: object[]): void {
  mkdirSync(dir, { recursive: true });
  const lines = [
    { type: "header", version: 1, title: "t", provider: "openai", model: "m", relm: "0", ...header },
    ...events.map((e, i) => ({ n: i + 1, t: header.created, ...e })),
  ];
  writeFileSync(join(dir, "journal.jsonl"), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
}

const cell = (callId: string, code: string) => ({ type: "cell", turn: 1, callId, code });
const output = (callId: string, text: string, extra: object = {}) => ({
  type: "cell_output",
  turn: 1,
  callId,
  executionCount: 1,
  status: "ok",
  output: text,
  outputChars: text.length,
  truncated: false,
  imageFiles: [],
  durationMs: 1,
  ...extra,
});

describe("the recorded cells of a project's sessions", () => {
  it("reads the project's sessions oldest first, with their children, outputs and failures", () => {
    const { home, project, other } = dirs();
    const sessions = join(home, "sessions");
    journal(
      join(sessions, "bbbb"),
      { id: "bbbb", cwd: join(project, "sub"), created: "2026-01-02T00:00:00Z" },
      [
        cell("c1", "x = 1"),
        output("c1", "cut…", { truncated: true, fullOutputFile: "outputs/cell-1.txt" }),
        cell("c2", "y = 2"),
        output("c2", "cut…", { truncated: true, fullOutputFile: "outputs/missing.txt" }),
        cell("c3", "!false"),
        output("c3", "", { exitCode: 1 }),
        cell("c4", "1/0"),
        output("c4", "ZeroDivisionError", { status: "error" }),
        cell("c5", "never answered"),
      ],
    );
    mkdirSync(join(sessions, "bbbb", "outputs"));
    writeFileSync(join(sessions, "bbbb", "outputs", "cell-1.txt"), "the whole output\n");
    journal(
      join(sessions, "bbbb", "children", "kid1"),
      { id: "kid1", cwd: join(project, "sub"), created: "2026-01-02T00:01:00Z" },
      [cell("k1", "print('child')"), output("k1", "child\n")],
    );
    journal(join(sessions, "aaaa"), { id: "aaaa", cwd: project, created: "2026-01-03T00:00:00Z" }, [
      cell("a1", "print('hi')"),
      output("a1", "hi\n"),
    ]);
    journal(join(sessions, "cccc"), { id: "cccc", cwd: other, created: "2026-01-01T00:00:00Z" }, [
      cell("o1", "print('elsewhere')"),
      output("o1", "elsewhere\n"),
    ]);
    mkdirSync(join(sessions, "dddd"));
    writeFileSync(join(sessions, "dddd", "journal.jsonl"), '{"type":"header","version":9,"id":"dddd"}\n');

    const found = projectSessions(home, join(project, "sub"));
    expect(found.root).toBe(project);
    expect(found.sessions.map((s) => s.id)).toEqual(["bbbb", "bbbb/children/kid1", "aaaa"]);
    expect(found.sessions[0]?.cwd).toBe(join(project, "sub"));
    expect(found.sessions[0]?.cells).toEqual([
      { event: 1, code: "x = 1", output: "the whole output\n", ok: true, complete: true },
      { event: 3, code: "y = 2", output: "cut…", ok: true, complete: false },
      { event: 5, code: "!false", output: "", ok: false, complete: true },
      { event: 7, code: "1/0", output: "ZeroDivisionError", ok: false, complete: true },
      { event: 9, code: "never answered", output: "", ok: false, complete: true },
    ]);
    expect(found.sessions[1]?.cells.map((c) => c.output)).toEqual(["child\n"]);
    expect(found.unreadable).toHaveLength(1);
    expect(found.unreadable[0]?.reason).toContain("unsupported journal version 9");
  });

  it("keeps the newest sessions when there are more than the limit", () => {
    const { home, project } = dirs();
    for (const [id, day] of [
      ["s1", "01"],
      ["s2", "03"],
      ["s3", "02"],
    ]) {
      journal(
        join(home, "sessions", id as string),
        { id: id as string, cwd: project, created: `2026-01-${day}T00:00:00Z` },
        [],
      );
    }
    expect(projectSessions(home, project, 2).sessions.map((s) => s.id)).toEqual(["s3", "s2"]);
    expect(projectSessions(join(home, "nothing-here"), project).sessions).toEqual([]);
  });
});
