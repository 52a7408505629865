// Issue 21, items 4 and 7, in the store: a scope never grows past its per-kind limits whoever writes
// (checkIntent before proposing, the store's own guard under its lock), and a damaged revision log is
// read around its damage, each bad line named once per file.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkIntent,
  HarnessLimitError,
  HarnessStore,
  type Intent,
  LIMITS,
  loadHarness,
  renderHarness,
  roomHint,
  scopeLocation,
  takeLogWarnings,
} from "../../../src/learning/store/index.js";
import { tempDir } from "../../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function scopes() {
  const home = tempDir("relm-bounds-home-");
  const cwd = tempDir("relm-bounds-cwd-");
  cleanups.push(home.cleanup, cwd.cleanup);
  const ctx = { cwd: cwd.path, home: home.path, sessionDir: join(home.path, "sessions", "s1bounds") };
  return {
    ctx,
    project: new HarnessStore(scopeLocation("project", ctx)),
    session: new HarnessStore(scopeLocation("session", ctx)),
  };
}

/** A memory of exactly `chars` characters, distinct per `n`. */
const memory = (n: number, chars = 500): Intent => ({
  op: "add",
  kind: "memory",
  title: "",
  content: `lesson ${n} `.padEnd(chars, String.fromCharCode(97 + (n % 26))),
  source: "user",
});
const memoryChars = (store: HarnessStore) =>
  [...store.state().values()]
    .filter((s) => s.entry.kind === "memory")
    .reduce((n, s) => n + s.entry.content.length, 0);

describe("scope limits on write", () => {
  it("the store refuses an add past a kind's total, naming the kind, the limit and how to make room", () => {
    const { project } = scopes();
    // 12 memories of 500 characters: exactly the 6,000 a scope may hold.
    const full = project.commit({
      intents: Array.from({ length: 12 }, (_, i) => memory(i)),
      author: "user",
      reason: "fill",
    });
    expect(full.revision?.edits).toHaveLength(12);
    expect(memoryChars(project)).toBe(LIMITS.memory.total);
    const over = project.commit({ intents: [memory(99, 20)], author: "user", reason: "one more" });
    expect(over.revision).toBeUndefined();
    expect(over.dropped[0]?.reason).toBe(
      "the project scope's memory entries would hold 6,020 characters, over the 6,000 a scope may hold of " +
        "memory entries in all (6,000 now); make room with `relm harness rm ENTRY --scope project` " +
        "(`relm harness list --scope project` shows them)",
    );
    // A batch is cut where it stops fitting: the adds before that land, the rest are dropped.
    const { project: other } = scopes();
    const batch = other.commit({
      intents: Array.from({ length: 30 }, (_, i) => memory(i, 410)),
      author: "learn",
      reason: "a reply of 30",
    });
    expect(batch.revision?.edits).toHaveLength(14);
    expect(batch.dropped).toHaveLength(16);
    expect(memoryChars(other)).toBeLessThanOrEqual(LIMITS.memory.total);
  });

  it("an add past a kind's number of entries is refused the same way", () => {
    const { session } = scopes();
    const specs: Intent[] = Array.from({ length: 11 }, (_, i) => ({
      op: "add",
      kind: "agent",
      title: `helper${i}`,
      content: `Helper ${i}.`,
      source: "user",
    }));
    const { revision, dropped } = session.commit({ intents: specs, author: "user", reason: "specs" });
    expect(revision?.edits).toHaveLength(LIMITS.agent.count);
    expect(dropped.map((d) => d.reason)).toEqual([
      "the session scope would hold 11 agent entries, over the 10 it may hold (0 now); make room with " +
        "`relm harness rm ENTRY --session s1bounds` (`relm harness list --session s1bounds` shows them)",
    ]);
  });

  it("an update that grows past the total is refused; a scope already over may still shrink", () => {
    const { session } = scopes();
    // Written before the limits were kept: 30 memories of 410 characters, 12,300 in all.
    session.commit({
      intents: Array.from({ length: 30 }, (_, i) => memory(i, 410)),
      author: "old relm",
      reason: "legacy",
      unbounded: true,
    });
    expect(memoryChars(session)).toBe(12_300);
    const [first, second] = [...session.state().keys()];
    expect(() =>
      session.commit({
        intents: [{ op: "update", id: first as string, content: "x".repeat(450) }],
        author: "user",
        reason: "grow",
      }),
    ).toThrow(HarnessLimitError);
    expect(() => session.commit({ intents: [memory(77, 10)], author: "user", reason: "add" })).not.toThrow();
    expect(session.revisions()).toHaveLength(1);
    // Shrinking is always allowed, and so is a removal.
    session.commit({
      intents: [
        { op: "update", id: first as string, content: "short now" },
        { op: "remove", id: second as string },
      ],
      author: "user",
      reason: "prune",
    });
    expect(memoryChars(session)).toBe(12_300 - 410 - 410 + 9);
    expect(roomHint(session.location)).toContain("--session s1bounds");
  });

  it("checkIntent rejects an edit past the total counting the batch, so a refinement shows only what fits", () => {
    const { project } = scopes();
    project.commit({ intents: Array.from({ length: 11 }, (_, i) => memory(i)), author: "user", reason: "a" });
    const ctx = {
      state: project.state(),
      location: project.location,
      others: [],
      batch: [] as Intent[],
      requireEvidence: false,
      source: "user" as const,
    };
    const first = checkIntent({ op: "add", kind: "memory", content: "y".repeat(480) }, ctx);
    expect(first.ok).toBe(true);
    if (first.ok) ctx.batch.push(first.intent);
    const second = checkIntent({ op: "add", kind: "memory", content: "z".repeat(30) }, ctx);
    expect(second).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /^the project scope's memory entries would hold 6,010 characters, over the 6,000 .*relm harness rm ENTRY --scope project/,
      ),
    });
  });

  it("a revert that would bring back more than fits is refused", () => {
    const { project } = scopes();
    const removed = project.commit({ intents: [memory(1)], author: "user", reason: "a" }).revision!;
    const rm = project.commit({
      intents: [{ op: "remove", id: removed.edits[0]?.id as string }],
      author: "user",
      reason: "rm",
    }).revision!;
    project.commit({
      intents: Array.from({ length: 12 }, (_, i) => memory(i + 10)),
      author: "user",
      reason: "fill",
    });
    expect(() => project.revert(rm.rev, { author: "user" })).toThrow(
      /cannot revert r\w+: it would bring back more than fits: the project scope's memory entries would hold 6,500/,
    );
  });
});

describe("a damaged revision log", () => {
  it("leaves out an edit without content and a line that is not JSON, loads the rest, and warns once per file", () => {
    const { project, ctx } = scopes();
    const good = project.commit({ intents: [memory(1, 40), memory(2, 40)], author: "user", reason: "a" })
      .revision!;
    const bad = JSON.parse(JSON.stringify(good));
    bad.rev = "rbadbad1";
    bad.seq = 2;
    delete bad.edits[0].after.content;
    bad.edits[1].after.id = bad.edits[1].id = "mem-zzzzzz";
    appendFileSync(project.logPath, `${JSON.stringify(bad)}\nnot json at all\n`);
    project.commit({ intents: [memory(3, 40)], author: "user", reason: "after" });

    const entries = project.entries();
    expect(entries.map((e) => e.content.slice(0, 8)).sort()).toEqual([
      "lesson 1",
      "lesson 2",
      "lesson 2",
      "lesson 3",
    ]);
    expect(project.problems()).toEqual([
      { line: 2, reason: `edit 1 (${good.edits[0]?.id}): after.content: missing` },
      { line: 3, reason: expect.stringMatching(/^not JSON \(/) },
    ]);
    // The session's view: the prompt renders, and the damage is one warning naming file and lines.
    const loaded = loadHarness(ctx);
    expect(loaded.block).toContain("lesson 3");
    expect(renderHarness(loaded.entries, [])).toBe(loaded.block);
    const warning = loaded.problems.find((p) => p.includes(project.logPath));
    expect(warning).toContain(`harness log ${project.logPath}:2,3: left out line 2, edit 1`);
    expect(warning).toContain("repair or delete those lines");
    const warnings = takeLogWarnings().filter((w) => w.includes(project.logPath));
    expect(warnings).toHaveLength(1);
    project.entries();
    expect(takeLogWarnings().filter((w) => w.includes(project.logPath))).toEqual([]);
    // The damage stays where it is: appending never rewrites earlier lines.
    expect(readFileSync(project.logPath, "utf8")).toContain("not json at all");
  });

  it("a revision whose shape is wrong is left out whole; one with no edits left keeps its place", () => {
    const { project } = scopes();
    mkdirSync(project.location.dir, { recursive: true });
    writeFileSync(
      project.logPath,
      [
        JSON.stringify({ v: 1, rev: "rnoedits", seq: 1, time: "2026-01-01T00:00:00Z", edits: "nope" }),
        JSON.stringify({
          v: 1,
          rev: "rallbad1",
          seq: 2,
          time: "2026-01-01T00:00:00Z",
          edits: [{ op: "add" }],
        }),
        "",
      ].join("\n"),
    );
    expect(project.revisions().map((r) => r.rev)).toEqual(["rallbad1"]);
    expect(project.problems().map((p) => [p.line, p.reason])).toEqual([
      [1, expect.stringMatching(/^not a revision \(edits: expected Array/)],
      [2, "edit 1: id: missing"],
    ]);
    expect(project.find("rall").revision.edits).toEqual([]);
  });
});
