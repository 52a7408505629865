import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Checkpoints } from "../../src/workspace/index.js";
import { git, treeState, userRepo, type Workspace, write } from "./helpers.js";

let workspaces: Workspace[] = [];
afterEach(() => {
  for (const w of workspaces) w.cleanup();
  workspaces = [];
});

/** Everything git keeps about the user's repository, read without running git. */
function userGitState(cwd: string) {
  return {
    head: readFileSync(join(cwd, ".git", "HEAD"), "utf8"),
    index: readFileSync(join(cwd, ".git", "index")),
    files: treeState(join(cwd, ".git")),
  };
}

describe("the user's own repository", () => {
  it("keeps its HEAD, index bytes, refs and objects through snapshot, restore and fingerprint", async () => {
    const w = userRepo();
    workspaces.push(w);
    write(w.cwd, "src/main.py", "staged change\n");
    git(w.cwd, ["add", "src/main.py"], w.env);
    write(w.cwd, "src/main.py", "unstaged change on top\n");
    write(w.cwd, ".git/info/exclude", "local-only.txt\n");
    write(w.cwd, "local-only.txt", "excluded by the user's .git/info/exclude\n");
    const before = userGitState(w.cwd);
    const status = git(w.cwd, ["status", "--porcelain"], { ...w.env, GIT_OPTIONAL_LOCKS: "0" });

    // A GIT_DIR leaking from the caller (relm started from a git hook) must not redirect anything.
    const leaky = {
      ...w.env,
      GIT_DIR: join(w.cwd, ".git"),
      GIT_INDEX_FILE: join(w.cwd, ".git", "index"),
      GIT_WORK_TREE: w.cwd,
    };
    const cp = await Checkpoints.open({ home: w.home, cwd: w.cwd, sessionId: "s1", env: leaky });
    if (!(cp instanceof Checkpoints)) throw new Error(cp.unavailable);
    const first = await cp.snapshot(1);
    expect(first.filesChanged).toBe(3); // .gitignore, README.md, src/main.py: nothing from .git/
    write(w.cwd, "src/main.py", "broken by the agent\n");
    write(w.cwd, "agent.txt", "new\n");
    await cp.snapshot(2);
    await cp.fingerprint();
    await cp.restore(1);
    await cp.list();

    expect(userGitState(w.cwd)).toEqual(before);
    expect(readFileSync(join(w.cwd, "src/main.py"), "utf8")).toBe("unstaged change on top\n");
    expect(existsSync(join(w.cwd, "local-only.txt"))).toBe(true);
    expect(git(w.cwd, ["status", "--porcelain"], { ...w.env, GIT_OPTIONAL_LOCKS: "0" })).toBe(status);
  });

  it("takes over a lock and an index.lock left by a process that died", async () => {
    const w = userRepo();
    workspaces.push(w);
    const cp = await Checkpoints.open({
      home: w.home,
      cwd: w.cwd,
      sessionId: "s1",
      env: w.env,
      lockWaitMs: 2000,
    });
    if (!(cp instanceof Checkpoints)) throw new Error(cp.unavailable);
    // Pid 2^22+1 is above Linux's pid_max default, so it names no live process.
    writeFileSync(join(cp.gitDir, "relm.lock"), String(4_194_305));
    writeFileSync(join(cp.gitDir, "index.lock"), "");
    await cp.snapshot(1);
    expect((await cp.list()).length).toBe(1);
    expect(existsSync(join(cp.gitDir, "relm.lock"))).toBe(false);
  });

  it("waits for a live holder and then says what to do", async () => {
    const w = userRepo();
    workspaces.push(w);
    const cp = await Checkpoints.open({
      home: w.home,
      cwd: w.cwd,
      sessionId: "s1",
      env: w.env,
      lockWaitMs: 100,
    });
    if (!(cp instanceof Checkpoints)) throw new Error(cp.unavailable);
    writeFileSync(join(cp.gitDir, "relm.lock"), String(process.ppid));
    await expect(cp.snapshot(1)).rejects.toThrow(/busy.*delete that file/);
  });
});

describe("a user's index naming an object their store lacks (a partial clone, a pruned blob)", () => {
  it("the first checkpoint drops the seed (the alternate and the index) and hashes the files itself", async () => {
    const w = userRepo();
    workspaces.push(w);
    // Files older than the index, as in any repository but a fresh one: git trusts their stat data
    // instead of hashing them again as "racily clean".
    const hourAgo = Date.now() / 1000 - 3600;
    for (const f of [".gitignore", "README.md", "src/main.py"]) utimesSync(join(w.cwd, f), hourAgo, hourAgo);
    git(w.cwd, ["update-index", "--refresh"], w.env);
    const blob = git(w.cwd, ["rev-parse", "HEAD:src/main.py"], w.env).trim();
    rmSync(join(w.cwd, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    const userObjects = join(w.cwd, ".git", "objects");
    const cp = await Checkpoints.open({ home: w.home, cwd: w.cwd, sessionId: "s1", env: w.env });
    if (!(cp instanceof Checkpoints)) throw new Error(cp.unavailable);
    const alternates = join(cp.gitDir, "objects", "info", "alternates");
    expect(readFileSync(alternates, "utf8")).toContain(userObjects); // seeded from the user's index

    const first = await cp.snapshot(1);
    expect(first.filesChanged).toBe(3);
    expect(readFileSync(alternates, "utf8")).not.toContain(userObjects);
    // The checkpoint holds the file itself now, not a name for an object nobody has.
    write(w.cwd, "src/main.py", "broken by the agent\n");
    await cp.snapshot(2);
    await cp.restore(1);
    expect(readFileSync(join(w.cwd, "src/main.py"), "utf8")).toBe("print('hello')\n");
    expect(existsSync(join(w.cwd, ".git", "objects", blob.slice(0, 2), blob.slice(2)))).toBe(false);
  });
});
