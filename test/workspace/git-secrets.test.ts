// Every git relm runs for checkpoints runs without the session's secrets: a cell runs as the user and
// can read /proc/PID/environ of a git while it runs (`git cat-file --batch` runs for the whole session),
// so a provider key or a URL with a password there would reach model-written code.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Checkpoints } from "../../src/workspace/index.js";
import { userRepo, type Workspace, write } from "./helpers.js";

let workspaces: Workspace[] = [];
afterEach(() => {
  for (const w of workspaces) w.cleanup();
  workspaces = [];
});

describe("checkpoints' git", () => {
  it("is started without provider keys or URLs with a password, for every command", async () => {
    const w = userRepo();
    workspaces.push(w);
    // A git that writes down its arguments and environment, then is the real git.
    const log = join(w.home, "git-calls.log");
    const wrapper = join(w.home, "git-logging");
    writeFileSync(wrapper, `#!/bin/sh\n{ echo "CALL $*"; env; } >> '${log}'\nexec git "$@"\n`);
    chmodSync(wrapper, 0o755);
    const key = "sk-test-checkpoint-key-1234";
    const password = "pw-checkpoint-5678";
    const env = { ...w.env, OPENAI_API_KEY: key, DATABASE_URL: `postgres://app:${password}@db.invalid/x` };

    const cp = await Checkpoints.open({ home: w.home, cwd: w.cwd, sessionId: "s1", env, git: wrapper });
    if (!(cp instanceof Checkpoints)) throw new Error(cp.unavailable);
    await cp.snapshot(1);
    write(w.cwd, "src/main.py", "changed by the agent\n");
    await cp.snapshot(2);
    await cp.restore(1);
    await cp.list();
    cp.close();

    const calls = readFileSync(log, "utf8");
    // The log really holds the calls: the version probe, a snapshot's commit, and the environment.
    expect(calls).toContain("CALL --version");
    expect(calls).toMatch(/CALL .*commit-tree|CALL .*write-tree|CALL .*update-index/);
    expect(calls).toContain(`HOME=`);
    expect(calls).not.toContain(key);
    expect(calls).not.toContain(password);
    expect(calls).not.toContain("OPENAI_API_KEY=");
  });
});
