// relm's own git calls never run what the project's repository configures (issue 19, item 5). The
// project's .git is read-only inside a sandbox only when it existed as the sandbox opened; one that
// appeared during a sandboxed session is the project's to say anything in, so relm must not obey it either.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listProjectFiles } from "../../src/tui/input/completion.js";
import { Checkpoints } from "../../src/workspace/index.js";
import { tempDir } from "../support/cli.js";
import { git, userRepo, type Workspace, write } from "./helpers.js";

let workspaces: Workspace[] = [];
const dirs: { cleanup: () => void }[] = [];
afterEach(() => {
  for (const w of workspaces) w.cleanup();
  for (const d of dirs.splice(0)) d.cleanup();
  workspaces = [];
});

const HOOKS = [
  "pre-commit",
  "post-commit",
  "post-checkout",
  "post-index-change",
  "reference-transaction",
  "pre-auto-gc",
  "post-rewrite",
  "fsmonitor-watchman",
];

/**
 * Plants in `gitDir` what would run a command at the next git call: core.fsmonitor, an alias, hooks
 * (through core.hooksPath and in hooks/). Each leaves a file in `markers` named after itself.
 */
function plant(repo: string, gitDir: string, markers: string, env: NodeJS.ProcessEnv): void {
  const touch = (name: string) => `touch ${join(markers, name)}; echo`;
  git(repo, ["--git-dir", gitDir, "config", "core.fsmonitor", touch("fsmonitor")], env);
  git(repo, ["--git-dir", gitDir, "config", "alias.ls-files", `!${touch("alias")}`], env);
  git(repo, ["--git-dir", gitDir, "config", "core.hooksPath", join(gitDir, "planted-hooks")], env);
  for (const dir of ["hooks", "planted-hooks"]) {
    for (const hook of HOOKS) {
      const file = join(gitDir, dir, hook);
      write(gitDir, join(dir, hook), `#!/bin/sh\n${touch(`${dir}-${hook}`)}\n`);
      chmodSync(file, 0o755);
    }
  }
}

describe("relm's git calls and the project's repository config", () => {
  it("checkpoints run nothing the user's repository or a nested one configures", async () => {
    const w = userRepo();
    workspaces.push(w);
    const markers = tempDir("relm-markers-");
    dirs.push(markers);
    plant(w.cwd, join(w.cwd, ".git"), markers.path, w.env);
    // A nested repository, as sandboxed code could make one where none was.
    mkdirSync(join(w.cwd, "nested"));
    git(join(w.cwd, "nested"), ["init", "-q"], w.env);
    write(w.cwd, "nested/file.txt", "inside\n");
    plant(join(w.cwd, "nested"), join(w.cwd, "nested", ".git"), markers.path, w.env);

    const cp = await Checkpoints.open({ home: w.home, cwd: w.cwd, sessionId: "s1", env: w.env });
    if (!(cp instanceof Checkpoints)) throw new Error(cp.unavailable);
    await cp.snapshot(1);
    write(w.cwd, "src/main.py", "changed\n");
    write(w.cwd, "nested/file.txt", "changed too\n");
    await cp.snapshot(2);
    await cp.fingerprint();
    await cp.restore(1);
    await cp.list();
    await cp.maintain();
    cp.close();
    expect(readdirSync(markers.path)).toEqual([]);
    // What the plants do to a plain git command in the same places: they are live.
    git(w.cwd, ["status"], w.env);
    git(join(w.cwd, "nested"), ["status"], w.env);
    expect(readdirSync(markers.path)).toContain("fsmonitor");
  });

  it("the terminal's @-completion lists the files without running the repository's fsmonitor", async () => {
    const w = userRepo();
    workspaces.push(w);
    const markers = tempDir("relm-markers-");
    dirs.push(markers);
    plant(w.cwd, join(w.cwd, ".git"), markers.path, w.env);
    write(w.cwd, "new.txt", "untracked\n");
    const files = await listProjectFiles(w.cwd);
    expect(files.sort()).toEqual([".gitignore", "README.md", "new.txt", "src/main.py"]);
    expect(readdirSync(markers.path)).toEqual([]);
    git(w.cwd, ["ls-files", "--others"], w.env);
    expect(readdirSync(markers.path)).toEqual(["fsmonitor"]);
  });

  it("the @-completion answers from a walk when git stays stuck on a FIFO .gitignore a cell made", async () => {
    const w = userRepo();
    workspaces.push(w);
    mkdirSync(join(w.cwd, "sub"));
    execFileSync("mkfifo", [join(w.cwd, "sub", ".gitignore")]);
    const files = await listProjectFiles(w.cwd);
    expect(files.sort()).toEqual([".gitignore", "README.md", "src/main.py"]);
  }, 30_000);
});
