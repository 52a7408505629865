import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Checkpoints, type Unavailable } from "../../src/workspace/index.js";
import { tempDir } from "../support/cli.js";
import { treeState, userRepo, type Workspace, write } from "./helpers.js";

let workspaces: Workspace[] = [];
afterEach(() => {
  for (const w of workspaces) w.cleanup();
  workspaces = [];
});

function workspace(): Workspace {
  const w = userRepo();
  workspaces.push(w);
  return w;
}

async function open(
  w: Workspace,
  sessionId = "s1",
  extra: { maxFileBytes?: number; maxNewFiles?: number } = {},
): Promise<Checkpoints> {
  const cp = await Checkpoints.open({ home: w.home, cwd: w.cwd, sessionId, env: w.env, ...extra });
  if (!(cp instanceof Checkpoints)) throw new Error(cp.unavailable);
  return cp;
}

describe("checkpoints", () => {
  it("restores the exact files from before a turn: edits, creations, deletions, modes, links", async () => {
    const w = workspace();
    write(w.cwd, "data/table.csv", "a,b\r\n1,2\r\n");
    write(w.cwd, ".gitattributes", "* text=auto\n");
    write(w.cwd, "bin/blob.dat", Buffer.from([0, 1, 2, 255, 254, 0]));
    write(w.cwd, "run.sh", "#!/bin/sh\necho hi\n");
    chmodSync(join(w.cwd, "run.sh"), 0o755);
    symlinkSync("src/main.py", join(w.cwd, "link.py"));
    const cp = await open(w);
    const first = await cp.snapshot(1);
    expect(first.turn).toBe(1);
    const before = treeState(w.cwd, [".git"]);

    // What an agent's turn might do.
    write(w.cwd, "src/main.py", "raise SystemExit('broken')\n");
    write(w.cwd, "data/table.csv", "mangled\n");
    rmSync(join(w.cwd, "README.md"));
    rmSync(join(w.cwd, "bin"), { recursive: true });
    write(w.cwd, "new/deep/dir/file.txt", "created by the agent\n");
    write(w.cwd, "scratch.py", "x = 1\n");
    chmodSync(join(w.cwd, "run.sh"), 0o644);
    rmSync(join(w.cwd, "link.py"));
    write(w.cwd, "link.py", "now a file\n");
    await cp.snapshot(2);

    const result = await cp.restore(1);
    expect(result.checkpoint.turn).toBe(1);
    expect(treeState(w.cwd, [".git"])).toEqual(before);
    expect(result.changed.sort()).toEqual(
      ["README.md", "bin/blob.dat", "data/table.csv", "link.py", "run.sh", "src/main.py"].sort(),
    );
    expect(result.removed).toEqual(["new/deep/dir/file.txt", "scratch.py"]);
    expect(existsSync(join(w.cwd, "new"))).toBe(false);
    expect(readFileSync(join(w.cwd, "data/table.csv"), "utf8")).toBe("a,b\r\n1,2\r\n");
  });

  it("keeps a private file private when it is restored", async () => {
    const w = workspace();
    write(w.cwd, "credentials.ini", "token = abc\n");
    chmodSync(join(w.cwd, "credentials.ini"), 0o600);
    const cp = await open(w);
    await cp.snapshot(1);
    write(w.cwd, "credentials.ini", "token = overwritten\n");
    await cp.restore(1);
    expect(readFileSync(join(w.cwd, "credentials.ini"), "utf8")).toBe("token = abc\n");
    expect(statSync(join(w.cwd, "credentials.ini")).mode & 0o777).toBe(0o600);
  });

  it("skips ignored files and files over the size limit, and restore leaves them alone", async () => {
    const w = workspace();
    write(w.cwd, "debug.log", "ignored\n");
    write(w.cwd, "build/out.js", "ignored too\n");
    write(w.cwd, "big.bin", Buffer.alloc(2048, 1));
    write(w.cwd, "grows.txt", "small\n");
    const cp = await open(w, "s1", { maxFileBytes: 1024 });
    const first = await cp.snapshot(1);
    expect(first.skipped).toEqual([{ path: "big.bin", bytes: 2048 }]);

    write(w.cwd, "debug.log", "ignored, changed\n");
    write(w.cwd, "build/new.js", "ignored, new\n");
    write(w.cwd, "big.bin", Buffer.alloc(4096, 2));
    write(w.cwd, "grows.txt", Buffer.alloc(4096, 3));
    const second = await cp.snapshot(2);
    // A tracked file that grew past the limit leaves the snapshot instead of keeping stale content.
    expect(second.skipped.map((s) => s.path).sort()).toEqual(["big.bin", "grows.txt"]);

    const result = await cp.restore(1);
    expect(result.notRestored).toEqual([{ path: "big.bin", bytes: 2048 }]);
    expect(readFileSync(join(w.cwd, "debug.log"), "utf8")).toBe("ignored, changed\n");
    expect(readFileSync(join(w.cwd, "build/new.js"), "utf8")).toBe("ignored, new\n");
    expect(readFileSync(join(w.cwd, "big.bin"))).toEqual(Buffer.alloc(4096, 2));
    // It was small at turn 1, so the checkpoint has it.
    expect(readFileSync(join(w.cwd, "grows.txt"), "utf8")).toBe("small\n");
  });

  it("never deletes files that are ignored again once .gitignore is restored", async () => {
    const w = workspace();
    write(w.cwd, "server.log", "precious\n");
    const cp = await open(w);
    await cp.snapshot(1);
    rmSync(join(w.cwd, ".gitignore"));
    write(w.cwd, "server.log", "precious, still\n");
    write(w.cwd, "build/artifact", "made while unignored\n");
    write(w.cwd, "notes.txt", "agent's file\n");
    await cp.snapshot(2);

    const result = await cp.restore(1);
    expect(result.changed).toEqual([".gitignore"]);
    expect(result.removed).toEqual(["notes.txt"]);
    expect(result.keptIgnored).toEqual(["build/artifact", "server.log"]);
    expect(readFileSync(join(w.cwd, "server.log"), "utf8")).toBe("precious, still\n");
    expect(existsSync(join(w.cwd, "notes.txt"))).toBe(false);
  });

  it("refuses to take in a flood of new files and says what to ignore", async () => {
    const w = workspace();
    const cp = await open(w, "s1", { maxNewFiles: 5 });
    await cp.snapshot(1);
    for (let i = 0; i < 8; i++) write(w.cwd, `data/part-${i}.csv`, "1,2\n");
    await expect(cp.snapshot(2)).rejects.toThrow(
      /8 new files .* more than a checkpoint takes in at once .*\.gitignore/,
    );
    // Undo still sees (and removes) them.
    expect((await cp.restore(1)).removed).toHaveLength(8);
    for (let i = 0; i < 8; i++) write(w.cwd, `data/part-${i}.csv`, "1,2\n");
    write(w.cwd, ".gitignore", "*.log\nbuild/\ndata/\n");
    expect((await cp.snapshot(2)).filesChanged).toBe(1);
  });

  it("lists checkpoints with the files changed since the previous one", async () => {
    const w = workspace();
    const cp = await open(w);
    expect(await cp.list()).toEqual([]);
    await cp.snapshot(1, "first cell");
    await cp.snapshot(3);
    write(w.cwd, "a.txt", "a\n");
    write(w.cwd, "b.txt", "b\n");
    await cp.snapshot(4);
    const list = await cp.list();
    expect(list.map((c) => [c.turn, c.filesChanged])).toEqual([
      [1, 3],
      [3, 0],
      [4, 2],
    ]);
    expect(list[0]?.label).toBe("first cell");
    expect(Number.isNaN(Date.parse(list[0]?.time ?? ""))).toBe(false);
  });

  it("counts changed files the same way when snapshotting and when listing", async () => {
    const w = workspace();
    const cp = await open(w, "s1", { maxFileBytes: 1024 });
    const counts = [(await cp.snapshot(1)).filesChanged];
    write(w.cwd, "a.txt", "a\n");
    write(w.cwd, "src/main.py", "changed\n");
    counts.push((await cp.snapshot(2)).filesChanged);
    chmodSync(join(w.cwd, "a.txt"), 0o755);
    rmSync(join(w.cwd, "README.md"));
    write(w.cwd, "src/main.py", Buffer.alloc(2048, 1));
    counts.push((await cp.snapshot(3)).filesChanged);
    await cp.fingerprint();
    write(w.cwd, "b.txt", "b\n");
    counts.push((await cp.snapshot(4)).filesChanged);
    expect(counts).toEqual([3, 2, 3, 1]);
    expect((await cp.list()).map((c) => c.filesChanged)).toEqual(counts);
  });

  it("restores the next checkpoint when the turn has none, and says which turns exist when none fits", async () => {
    const w = workspace();
    const cp = await open(w);
    await cp.snapshot(2);
    write(w.cwd, "late.txt", "x\n");
    await cp.snapshot(5);
    write(w.cwd, "later.txt", "y\n");
    expect((await cp.restore(3)).checkpoint.turn).toBe(5);
    expect(existsSync(join(w.cwd, "late.txt"))).toBe(true);
    expect(existsSync(join(w.cwd, "later.txt"))).toBe(false);
    await expect(cp.restore(6)).rejects.toThrow(/before turns 2, 5/);
  });

  it("records a turn that changed nothing without a commit, and restores it as a commit would", async () => {
    const w = workspace();
    const cp = await open(w);
    await cp.snapshot(1);
    write(w.cwd, "a.txt", "one\n");
    const second = await cp.snapshot(2);
    const third = await cp.snapshot(3); // nothing changed since turn 2
    const fourth = await cp.snapshot(4); // nor since turn 3
    expect([third.commit, fourth.commit]).toEqual([second.commit, second.commit]);
    expect([third.filesChanged, fourth.filesChanged]).toEqual([0, 0]);
    write(w.cwd, "a.txt", "four\n"); // turn 4's cells
    await cp.snapshot(5);
    write(w.cwd, "a.txt", "five\n");
    const commits = execFileSync("git", ["--git-dir", cp.gitDir, "rev-list", "--count", cp.ref], {
      env: w.env,
    });
    expect(Number(commits.toString())).toBe(3); // turns 1, 2 and 5
    // Listed as before, by a new instance too (another process: relm checkpoints, relm undo).
    const again = await open(w);
    expect((await again.list()).map((c) => [c.turn, c.filesChanged])).toEqual([
      [1, 3],
      [2, 1],
      [3, 0],
      [4, 0],
      [5, 1],
    ]);
    // Before turn 4 is before its cells: "one", not the next checkpoint's "four".
    expect((await again.restore(4)).checkpoint.turn).toBe(4);
    expect(readFileSync(join(w.cwd, "a.txt"), "utf8")).toBe("one\n");
    await again.restore(5);
    expect(readFileSync(join(w.cwd, "a.txt"), "utf8")).toBe("four\n");
    await again.restore(3);
    expect(readFileSync(join(w.cwd, "a.txt"), "utf8")).toBe("one\n");
    await again.restore(1);
    expect(existsSync(join(w.cwd, "a.txt"))).toBe(false);
  });

  it("keeps a backup of the state it replaced", async () => {
    const w = workspace();
    const cp = await open(w);
    await cp.snapshot(1);
    write(w.cwd, "work.txt", "the agent's work\n");
    const { backup } = await cp.restore(1);
    expect(existsSync(join(w.cwd, "work.txt"))).toBe(false);
    expect(backup).toMatch(/^[0-9a-f]{40}$/);
  });

  it("fingerprints the workspace without creating a checkpoint", async () => {
    const w = workspace();
    const cp = await open(w);
    const a = await cp.fingerprint();
    expect(await cp.fingerprint()).toBe(a);
    write(w.cwd, "src/main.py", "changed\n");
    const b = await cp.fingerprint();
    expect(b).not.toBe(a);
    write(w.cwd, "debug.log", "ignored files do not count\n");
    expect(await cp.fingerprint()).toBe(b);
    expect(await cp.list()).toEqual([]);
    expect((await cp.snapshot(1)).tree).toBe(b);
  });

  it("keeps two sessions in one directory apart, even when they snapshot at once", async () => {
    const w = workspace();
    const one = await open(w, "one");
    const two = await open(w, "two");
    expect(one.gitDir).toBe(two.gitDir);
    await Promise.all([one.snapshot(1), two.snapshot(1), one.snapshot(2), two.snapshot(7)]);
    write(w.cwd, "x.txt", "x\n");
    await two.snapshot(8);
    expect((await one.list()).map((c) => c.turn)).toEqual([1, 2]);
    expect((await two.list()).map((c) => c.turn)).toEqual([1, 7, 8]);
    await one.restore(2);
    expect(existsSync(join(w.cwd, "x.txt"))).toBe(false);
    expect((await two.list()).map((c) => c.turn)).toEqual([1, 7, 8]);
  });

  it("never snapshots relm's own home when it lies inside the working directory", async () => {
    const w = workspace();
    const home = join(w.cwd, "state", "relm-home");
    mkdirSync(home, { recursive: true });
    const cp = await Checkpoints.open({ home, cwd: w.cwd, sessionId: "s1", env: w.env });
    if (!(cp instanceof Checkpoints)) throw new Error(cp.unavailable);
    writeFileSync(join(home, "note"), "x");
    const first = await cp.snapshot(1);
    expect(first.filesChanged).toBe(3);
    write(w.cwd, "new.txt", "x\n");
    await cp.restore(1);
    expect(existsSync(join(home, "note"))).toBe(true);
  });

  it("is unavailable, with a reason, when git is missing", async () => {
    const w = workspace();
    const empty = tempDir("relm-nogit-");
    try {
      const result = await Checkpoints.open({
        home: w.home,
        cwd: w.cwd,
        sessionId: "s1",
        env: { ...w.env, PATH: empty.path },
      });
      expect(result).not.toBeInstanceOf(Checkpoints);
      expect((result as Unavailable).unavailable).toMatch(/git was not found/);
      expect(existsSync(join(w.home, "checkpoints"))).toBe(false);
    } finally {
      empty.cleanup();
    }
  });

  it("is unavailable in the home directory and rejects unsafe session ids", async () => {
    const w = workspace();
    const result = await Checkpoints.open({
      home: w.home,
      cwd: w.cwd,
      sessionId: "s1",
      env: { ...w.env, HOME: w.cwd },
    });
    expect((result as Unavailable).unavailable).toMatch(/home directory/);
    await expect(
      Checkpoints.open({ home: w.home, cwd: w.cwd, sessionId: "../x", env: w.env }),
    ).rejects.toThrow(/Invalid session id/);
  });
});

describe("a FIFO in the project", () => {
  it("fails a checkpoint at once, naming it, instead of waiting out git's timeout", async () => {
    // git reads a .gitignore that is a FIFO and waits for a writer: each checkpoint call took the whole
    // two-minute timeout, and a session's end several of them.
    const w = workspace();
    mkdirSync(join(w.cwd, "sub"));
    execFileSync("mkfifo", [join(w.cwd, "sub", ".gitignore")]);
    const cp = await open(w);
    await expect(cp.snapshot(1)).rejects.toThrow(
      /waited on a FIFO in the project.*`find \. -type p` lists them: remove it/,
    );
    cp.close();
  }, 20_000);
});
