import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  HarnessConflictError,
  HarnessLogError,
  HarnessStore,
  type Intent,
  scopeLocation,
} from "../../../src/learning/store/index.js";
import { withLock } from "../../../src/learning/store/lock.js";
import { tempDir } from "../../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function stores() {
  const home = tempDir("relm-harness-home-");
  const cwd = tempDir("relm-harness-cwd-");
  cleanups.push(home.cleanup, cwd.cleanup);
  const ctx = { cwd: cwd.path, home: home.path, sessionDir: join(home.path, "sessions", "abc") };
  return {
    ctx,
    user: new HarnessStore(scopeLocation("user", ctx)),
    project: new HarnessStore(scopeLocation("project", ctx)),
    session: new HarnessStore(scopeLocation("session", ctx)),
  };
}

const memory = (content: string, title = ""): Intent => ({
  op: "add",
  kind: "memory",
  title,
  content,
  source: "user",
});
const entries = (store: HarnessStore) => [...store.state().values()].map((s) => s.entry);

describe("harness store", () => {
  it("derives the state from an append-only log whose revisions chain by parent", () => {
    const { project } = stores();
    const r1 = project.commit({
      intents: [memory("one"), memory("two")],
      author: "user",
      reason: "start",
    }).revision;
    const id = r1?.edits[0]?.id as string;
    const r2 = project.commit({
      intents: [{ op: "update", id, content: "ONE" }],
      author: "user",
      reason: "fix",
    }).revision;
    expect(r2).toMatchObject({ seq: 2, parent: r1?.rev });
    expect(r2?.edits[0]?.before?.content).toBe("one");
    expect(r2?.edits[0]?.after?.content).toBe("ONE");
    expect(entries(project).map((e) => e.content)).toEqual(["ONE", "two"]);
    expect(readFileSync(project.logPath, "utf8").trim().split("\n")).toHaveLength(2);
  });

  it("reverts a revision exactly, and refuses one whose entry a later revision changed unless forced", () => {
    const { user } = stores();
    user.commit({ intents: [memory("keep")], author: "user", reason: "a" });
    const before = entries(user);
    const r2 = user.commit({ intents: [memory("new")], author: "user", reason: "b" }).revision!;
    const newId = r2.edits[0]?.id as string;
    const r3 = user.commit({
      intents: [{ op: "update", id: newId, content: "newer" }],
      author: "user",
      reason: "c",
    }).revision!;

    expect(() => user.revert(r2.rev, { author: "user" })).toThrow(new RegExp(`later revision ${r3.rev}`));
    const forced = user.revert(r2.rev, { author: "user", force: true });
    expect(forced).toMatchObject({ revert: r2.rev, reason: `revert ${r2.rev} (forced)` });
    expect(entries(user)).toEqual(before);
    // Undoing the undo brings the entry back as it was when it was reverted.
    user.revert(forced.rev, { author: "user" });
    expect(entries(user).map((e) => e.content)).toEqual(["keep", "newer"]);
  });

  it("rebases adds onto revisions written since its parent, and refuses edits of entries changed meanwhile", () => {
    const { project } = stores();
    const base = project.commit({ intents: [memory("shared")], author: "user", reason: "a" }).revision!;
    const id = base.edits[0]?.id as string;
    project.commit({ intents: [{ op: "update", id, content: "changed" }], author: "user", reason: "b" });
    const add = project.commit({
      intents: [memory("another")],
      parent: base.rev,
      author: "user",
      reason: "c",
    });
    expect(add.revision?.seq).toBe(3);
    expect(() =>
      project.commit({ intents: [{ op: "remove", id }], parent: base.rev, author: "user", reason: "d" }),
    ).toThrow(HarnessConflictError);
    const dup = project.commit({
      intents: [memory("Another!")],
      parent: base.rev,
      author: "user",
      reason: "e",
    });
    expect(dup.revision).toBeUndefined();
    expect(dup.dropped[0]?.reason).toMatch(/equal entry mem-/);
  });

  it("skips a torn last line and repairs it before the next revision; a damaged middle line names file and line", () => {
    const { project } = stores();
    project.commit({ intents: [memory("one")], author: "user", reason: "a" });
    appendFileSync(project.logPath, '{"v":1,"rev":"rhalf');
    expect(entries(project)).toHaveLength(1);
    project.commit({ intents: [memory("two")], author: "user", reason: "b" });
    expect(readFileSync(project.logPath, "utf8")).not.toContain("rhalf");
    expect(entries(project)).toHaveLength(2);

    // Git's conflict markers are left out and reported; both sides' revisions still derive, in file order.
    writeFileSync(project.logPath, `<<<<<<< HEAD\n${readFileSync(project.logPath, "utf8")}=======\n`);
    expect(entries(project)).toHaveLength(2);
    expect(project.problems()).toEqual([
      { line: 1, reason: "an unresolved merge: keep both sides' lines" },
      { line: 4, reason: "an unresolved merge: keep both sides' lines" },
    ]);
    // A line from a newer relm is not guessed at: reading stops, naming file and line.
    appendFileSync(project.logPath, `${JSON.stringify({ v: 99, rev: "rnew", edits: [] })}\n`);
    expect(() => project.revisions()).toThrow(HarnessLogError);
    expect(() => project.revisions()).toThrow(/revisions.jsonl:5: written by a newer relm/);
  });

  it("keeps user and session scopes private (0600 files, 0700 folders); the project's are shareable", () => {
    const { user, session, project } = stores();
    for (const store of [user, session, project])
      store.commit({ intents: [memory("x")], author: "user", reason: "a" });
    for (const store of [user, session]) {
      expect(statSync(store.logPath).mode & 0o777).toBe(0o600);
      expect(statSync(store.location.dir).mode & 0o777).toBe(0o700);
    }
    expect(statSync(project.logPath).mode & 0o777).toBe(0o644);
    expect(readFileSync(join(project.location.dir, ".gitignore"), "utf8")).toContain("uses.jsonl");
  });

  it("counts uses apart from the revisions", () => {
    const { project } = stores();
    const id = project.commit({ intents: [memory("x")], author: "user", reason: "a" }).revision?.edits[0]
      ?.id as string;
    project.recordUse(id, "s1");
    project.recordUse(id, "s2");
    expect(project.entries()[0]?.uses).toBe(2);
    expect(project.revisions()).toHaveLength(1);
  });
});

describe("the lock", () => {
  it("takes over a lock left by a process that died, and waits for a live holder", () => {
    const { project } = stores();
    project.commit({ intents: [memory("first")], author: "user", reason: "a" });
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid as number;
    const lock = join(project.location.dir, "revisions.lock");
    writeFileSync(lock, JSON.stringify({ pid: dead, host: hostname(), since: "2026-01-01T00:00:00Z" }));
    expect(project.commit({ intents: [memory("second")], author: "user", reason: "b" }).revision?.seq).toBe(
      2,
    );
    expect(existsSync(lock)).toBe(false);

    // Alive: the runner of this test (a lock naming this very process that it does not hold is stale).
    writeFileSync(
      lock,
      JSON.stringify({ pid: process.ppid, host: hostname(), since: "2026-01-01T00:00:00Z" }),
    );
    expect(() => withLock(lock, () => 1, 50)).toThrow(new RegExp(`locked by process ${process.ppid}`));
  });
});
