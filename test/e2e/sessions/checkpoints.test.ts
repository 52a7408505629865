import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Journal, sessionDir } from "../../../src/session/index.js";
import { Checkpoints } from "../../../src/workspace/index.js";
import { cleanEnv, runRelm, tempDir } from "../../support/cli.js";
import { treeState, userRepo, type Workspace, write } from "../../workspace/helpers.js";

let workspaces: Workspace[] = [];
afterEach(() => {
  for (const w of workspaces) w.cleanup();
  workspaces = [];
});

/** A session journal whose header names the repository as its cwd, as `relm run` would write it. */
function session(w: Workspace, id: string): void {
  const journal = Journal.create(sessionDir(w.home, id), {
    id,
    created: new Date().toISOString(),
    cwd: w.cwd,
    title: "fix the parser",
    provider: "openai",
    model: "scripted",
    relm: "test",
  });
  journal.close();
}

async function checkpoints(w: Workspace, id: string): Promise<Checkpoints> {
  const cp = await Checkpoints.open({ home: w.home, cwd: w.cwd, sessionId: id, env: w.env });
  if (!(cp instanceof Checkpoints)) throw new Error(cp.unavailable);
  return cp;
}

function userGit(cwd: string) {
  return { head: readFileSync(join(cwd, ".git/HEAD")), index: readFileSync(join(cwd, ".git/index")) };
}

describe("relm checkpoints and relm undo", () => {
  it("list a session's checkpoints and put back a file the agent broke", async () => {
    const w = userRepo();
    workspaces.push(w);
    const id = "k7m2p9qa";
    session(w, id);
    const env = cleanEnv({ RELM_HOME: w.home });
    const git = userGit(w.cwd);

    // What the agent loop does: a snapshot before each turn that runs code, then the cell's effects.
    const cp = await checkpoints(w, id);
    await cp.snapshot(1);
    const before = treeState(w.cwd, [".git"]);
    write(w.cwd, "src/main.py", "def main(:\n  broken\n");
    await cp.snapshot(2);
    write(w.cwd, "scratch/notes.txt", "agent's scratch file\n");
    rmSync(join(w.cwd, "README.md"));

    const listed = await runRelm(["checkpoints", "k7m"], { env });
    expect(listed.stderr).toBe("");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`checkpoints of session ${id} in ${w.cwd}`);
    expect(listed.stdout).toMatch(/^turn\s+time\s+files changed/m);
    expect(listed.stdout).toMatch(/^1\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+3$/m);
    expect(listed.stdout).toMatch(/^2\s+\S+ \S+\s+1$/m);

    const json = await runRelm(["checkpoints", id, "--json"], { env });
    expect(
      json.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).turn),
    ).toEqual([1, 2]);

    // Default: before the last checkpointed turn (2), which keeps the broken main.py.
    const last = await runRelm(["undo", id], { env });
    expect(last.code).toBe(0);
    expect(last.stdout).toContain("restored the files to before turn 2");
    expect(last.stdout).toMatch(/restored {2}README\.md/);
    expect(last.stdout).toMatch(/removed {3}scratch\/notes\.txt/);
    expect(readFileSync(join(w.cwd, "src/main.py"), "utf8")).toContain("broken");

    const first = await runRelm(["undo", id, "--to", "1"], { env });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/restored {2}src\/main\.py/);
    expect(treeState(w.cwd, [".git"])).toEqual(before);
    expect(existsSync(join(w.cwd, "scratch"))).toBe(false);
    expect(userGit(w.cwd)).toEqual(git);

    const again = await runRelm(["undo", id, "--to", "1"], { env });
    expect(again.stdout).toContain("nothing to restore");
  });

  it("explain usage, unknown sessions, sessions without checkpoints and a missing git", async () => {
    const w = userRepo();
    workspaces.push(w);
    session(w, "q3x8v1bn");
    const env = cleanEnv({ RELM_HOME: w.home });
    for (const command of ["checkpoints", "undo"]) {
      const help = await runRelm([command, "--help"], { env });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`Usage: relm ${command} \\[options\\] <id>`));
    }
    expect((await runRelm(["undo", "q3x", "--to", "two"], { env })).code).toBe(2);
    const unknown = await runRelm(["checkpoints", "zzzz"], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No session matches "zzzz"');

    const none = await runRelm(["checkpoints", "q3x"], { env });
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("has no checkpoints yet");
    const nothing = await runRelm(["undo", "q3x"], { env });
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain("no checkpoints: nothing to undo");
    const wrongTurn = await checkpoints(w, "q3x8v1bn");
    await wrongTurn.snapshot(4);
    const late = await runRelm(["undo", "q3x", "--to", "9"], { env });
    expect(late.code).toBe(1);
    expect(late.stderr).toContain("no checkpoint at or after turn 9; checkpoints exist before turns 4");

    const empty = tempDir("relm-nogit-");
    try {
      const noGit = await runRelm(["checkpoints", "q3x"], { env: { ...env, PATH: empty.path } });
      expect(noGit.code).toBe(1);
      expect(noGit.stderr).toContain("git was not found on PATH");
    } finally {
      empty.cleanup();
    }
  });
});
