import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Checkpoints } from "../../src/workspace/index.js";
import { tempDir } from "../support/cli.js";
import { git, treeState, userRepo, type Workspace, write } from "./helpers.js";

let workspaces: Workspace[] = [];
const opened: Checkpoints[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) {
    c.close();
    await c.maintain(); // ends a packing still running in the background before the files go
  }
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
  sessionId: string,
  extra: {
    watch?: boolean;
    maxNewFiles?: number;
    git?: string;
    maxFileBytes?: number;
    maintain?: boolean;
  } = {},
): Promise<Checkpoints> {
  const cp = await Checkpoints.open({ home: w.home, cwd: w.cwd, sessionId, env: w.env, ...extra });
  if (!(cp instanceof Checkpoints)) throw new Error(cp.unavailable);
  opened.push(cp);
  return cp;
}

/** A `git` that logs each call's first argument, to see which snapshots ran git at all. */
function loggingGit(dir: string): { path: string; calls: () => string[] } {
  const log = join(dir, "git-calls.log");
  const path = join(dir, "git-logged");
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  writeFileSync(path, `#!/bin/sh\necho "$1" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  return {
    path,
    calls: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []),
  };
}

function looseObjects(gitDir: string): number {
  const objects = join(gitDir, "objects");
  return readdirSync(objects)
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .reduce((n, d) => n + readdirSync(join(objects, d)).filter((f) => /^[0-9a-f]{38}$/.test(f)).length, 0);
}

describe("checkpoints of a watched work tree", () => {
  it("takes the same trees from what changed as a full scan finds, change after change", async () => {
    const w = workspace();
    const watched = await open(w, "watched", { watch: true, maxFileBytes: 1000 });
    const scanned = await open(w, "scanned", { maxFileBytes: 1000 }); // no watcher: each call scans all
    const steps: [string, () => void][] = [
      ["nothing", () => {}],
      ["edit", () => write(w.cwd, "src/main.py", "print('edited')\n")],
      ["create", () => write(w.cwd, "notes.txt", "new\n")],
      ["delete", () => rmSync(join(w.cwd, "README.md"))],
      ["new nested directories", () => write(w.cwd, "pkg/sub/deep/mod.py", "x = 1\n")],
      ["a file in the new directory", () => write(w.cwd, "pkg/sub/other.py", "y = 2\n")],
      [
        "directory made again under its name",
        () => {
          rmSync(join(w.cwd, "pkg/sub/deep"), { recursive: true });
          write(w.cwd, "pkg/sub/deep/again.py", "a = 1\n");
        },
      ],
      ["in the directory made again", () => write(w.cwd, "pkg/sub/deep/more.py", "m = 2\n")],
      ["an ignored file", () => write(w.cwd, "debug.log", "ignored\n")],
      ["an ignored directory", () => write(w.cwd, "build/out/a.bin", "ignored\n")],
      ["in the ignored directory", () => write(w.cwd, "build/out/b.bin", "ignored\n")],
      ["executable", () => chmodSync(join(w.cwd, "src/main.py"), 0o755)],
      ["symlink", () => symlinkSync("src/main.py", join(w.cwd, "link.py"))],
      ["file over the size limit", () => write(w.cwd, "big.dat", "x".repeat(5000))],
      ["tracked file grows past the limit", () => write(w.cwd, "notes.txt", "y".repeat(5000))],
      ["tracked file shrinks again", () => write(w.cwd, "notes.txt", "small\n")],
      [
        "file becomes a directory",
        () => {
          rmSync(join(w.cwd, "notes.txt"));
          write(w.cwd, "notes.txt/inside.txt", "now a dir\n");
        },
      ],
      [
        "directory becomes a file",
        () => {
          rmSync(join(w.cwd, "pkg/sub"), { recursive: true });
          write(w.cwd, "pkg/sub", "now a file\n");
        },
      ],
      ["directory renamed", () => renameSync(join(w.cwd, "pkg"), join(w.cwd, "pkg2"))],
      ["in the renamed directory", () => write(w.cwd, "pkg2/later.py", "z = 3\n")],
      ["directory removed", () => rmSync(join(w.cwd, "pkg2"), { recursive: true })],
      ["emptied", () => rmSync(join(w.cwd, "src"), { recursive: true })],
    ];
    let turn = 0;
    await watched.snapshot(++turn); // the first one scans: nothing is known yet
    for (const [what, change] of steps) {
      change();
      const c = await watched.snapshot(++turn);
      expect(c.tree, what).toBe(await scanned.fingerprint());
      expect(c.skipped.map((s) => s.path).sort(), what).toEqual(
        (await scanned.snapshot(turn)).skipped.map((s) => s.path).sort(),
      );
    }
    // And the checkpoints restore like any other.
    const before = treeState(w.cwd, [".git"]);
    write(w.cwd, "after.txt", "x\n");
    await watched.snapshot(++turn);
    await watched.restore(turn - 1);
    expect(treeState(w.cwd, [".git"])).toEqual(before);
  });

  it("runs no git at all when nothing changed, and reads only the changed file otherwise", async () => {
    const w = workspace();
    const logged = loggingGit(w.home);
    const cp = await open(w, "s1", { watch: true, git: logged.path, maintain: false });
    await cp.snapshot(1);
    const afterFirst = logged.calls().length;
    await cp.snapshot(2);
    await cp.fingerprint();
    expect(logged.calls().length).toBe(afterFirst);
    write(w.cwd, "src/main.py", "changed\n");
    const c = await cp.snapshot(3);
    expect(c.filesChanged).toBe(1);
    expect(logged.calls().slice(afterFirst)).toEqual([]); // a tracked file: no ignore check, no scan
    write(w.cwd, "new.txt", "new\n");
    await cp.snapshot(4);
    expect(logged.calls().slice(afterFirst)).toEqual(["check-ignore"]);
  });

  it("says once that a flood of new files is too much, stops paying for it, and tries again after a .gitignore", async () => {
    const w = workspace();
    const logged = loggingGit(w.home);
    for (let i = 0; i < 12; i++) write(w.cwd, `data/part-${i}.csv`, `${i}\n`);
    const cp = await open(w, "s1", { watch: true, maxNewFiles: 10, git: logged.path, maintain: false });
    await expect(cp.snapshot(1)).rejects.toThrow(
      /12 new files .* list data or build directories in \.gitignore/,
    );
    const calls = logged.calls().length;
    await expect(cp.snapshot(2)).rejects.toThrow(/12 new files/);
    write(w.cwd, "src/main.py", "still refused, still free\n");
    await expect(cp.snapshot(3)).rejects.toThrow(/12 new files/);
    expect(logged.calls().length).toBe(calls);
    write(w.cwd, ".gitignore", "*.log\nbuild/\ndata/\n");
    const c = await cp.snapshot(4);
    expect(c.filesChanged).toBe(3);
  });

  it("starts from the user's own index: tracked files are not hashed or copied again", async () => {
    const w = workspace();
    for (let i = 0; i < 200; i++) write(w.cwd, `lib/m${i}.py`, `v = ${i}\n`);
    git(w.cwd, ["add", "-A"], w.env);
    git(w.cwd, ["commit", "-qm", "many"], w.env);
    write(w.cwd, "untracked.txt", "mine\n");
    write(w.cwd, "lib/m7.py", "edited, not committed\n");
    const userIndex = readFileSync(join(w.cwd, ".git", "index"));
    const cp = await open(w, "s1", { watch: true, maintain: false }); // packed below, when asked
    const c = await cp.snapshot(1);
    // The tracked, unchanged files' blobs come from the user's object store: only the two that differ
    // are stored here (and the trees and the commit).
    const blobs = execFileSync("git", ["--git-dir", cp.gitDir, "count-objects", "-v"], { encoding: "utf8" });
    expect(Number(/^count: (\d+)/m.exec(blobs)?.[1])).toBeLessThan(20);
    expect(readFileSync(join(cp.gitDir, "objects", "info", "alternates"), "utf8").trim()).toBe(
      join(w.cwd, ".git", "objects"),
    );
    expect(readFileSync(join(w.cwd, ".git", "index"))).toEqual(userIndex);
    // The same tree as a repository that knew nothing.
    const fresh = await Checkpoints.open({
      home: tempDir("relm-home-").path,
      cwd: w.cwd,
      sessionId: "x",
      env: w.env,
    });
    if (!(fresh instanceof Checkpoints)) throw new Error(fresh.unavailable);
    rmSync(join(fresh.gitDir, "index"));
    rmSync(join(fresh.gitDir, "objects", "info", "alternates"));
    expect(await fresh.fingerprint()).toBe(c.tree);

    // Packing copies what it borrowed: the checkpoints survive the user's repository.
    expect((await cp.maintain()).ran).toBe("repack");
    expect(looseObjects(cp.gitDir)).toBe(0);
    write(w.cwd, "lib/m1.py", "broken\n");
    await cp.snapshot(2);
    rmSync(join(w.cwd, ".git"), { recursive: true });
    await cp.restore(1);
    expect(readFileSync(join(w.cwd, "lib/m1.py"), "utf8")).toBe("v = 1\n");
    expect(readFileSync(join(w.cwd, "lib/m7.py"), "utf8")).toBe("edited, not committed\n");
  });

  it("starts from the user's index in a subdirectory of their repository too", async () => {
    const w = workspace();
    mkdirSync(join(w.cwd, "sub"));
    write(w.cwd, "sub/a.txt", "a\n");
    git(w.cwd, ["add", "-A"], w.env);
    git(w.cwd, ["commit", "-qm", "sub"], w.env);
    const sub = { ...w, cwd: join(w.cwd, "sub") };
    const cp = await open(sub, "s1", { watch: true });
    const c = await cp.snapshot(1);
    const listed = execFileSync("git", ["--git-dir", cp.gitDir, "ls-tree", "-r", "--name-only", c.tree], {
      encoding: "utf8",
    });
    expect(listed.trim().split("\n")).toEqual(["a.txt"]);
  });
});
