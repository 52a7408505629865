// Lessons on probation in process (docs/harness.md, "Probation"): carrying a session's lesson forward,
// what a new session's prompt shows, and what verdicts do to it. Synthetic journals, real stores.
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { carryForward } from "../../../src/learning/probation/carry.js";
import { alreadyPromotedLine, promoteEntries } from "../../../src/learning/probation/promote.js";
import {
  type AlreadyPromoted,
  type Entry,
  HarnessStore,
  type Intent,
  loadHarness,
  lockProjectScope,
  PROBATION_HEADING,
  projectHash,
  type Revision,
  renderedLine,
  scopeLocation,
  VERDICT_LOG_VERSION,
  VerdictLog,
} from "../../../src/learning/store/index.js";
import { evaluateVerdicts } from "../../../src/learning/verdicts/verdicts.js";
import { tempDir } from "../../support/cli.js";
import { BASE, chat, climb, tick, writeSession } from "../../support/synthetic-journal.js";

const LESSON = "The data file is data.csv, not data.json.";
const dirs: { cleanup: () => void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

function project() {
  const home = tempDir("relm-probation-home-");
  const cwd = tempDir("relm-probation-cwd-");
  dirs.push(home, cwd);
  mkdirSync(join(cwd.path, ".relm"), { recursive: true });
  const ctx = { cwd: cwd.path, home: home.path };
  return {
    ...ctx,
    ctx,
    probation: new HarnessStore(scopeLocation("probation", ctx)),
    projectStore: new HarnessStore(scopeLocation("project", ctx)),
  };
}

type Project = ReturnType<typeof project>;

/** A learner session whose learning pass added `content` to its own scope, carried forward. */
function learn(
  p: Project,
  id: string,
  events = chat("LEARN: look at the data"),
  content = LESSON,
): { session: Revision; carried: Revision | undefined; sessionDir: string } {
  const sessionDir = writeSession(p.home, p.cwd, id, BASE, events);
  const store = new HarnessStore(scopeLocation("session", { ...p.ctx, sessionDir }));
  const intent: Intent = {
    op: "add",
    kind: "memory",
    title: "data",
    content,
    source: "refine",
    evidence: [2],
    reason: "read the wrong file",
    hypothesis: "the build gate passes at the first try",
  };
  const { revision } = store.commit({
    intents: [intent],
    author: "learn m",
    reason: `learning pass 1 (every_turns) of session ${id}`,
    evidence: { session: id, events: [2] },
    trajectory: { session: id, from: 1, to: 4 },
    now: new Date(tick()),
  });
  const session = revision as Revision;
  return { session, carried: carryForward(session, { ...p.ctx, sessionDir }), sessionDir };
}

const withLesson = (entry: Entry) => `${BASE}\n${PROBATION_HEADING}\n${renderedLine(entry)}`;

describe("carrying a lesson forward", () => {
  it("writes the session's refine edits to the project's private probation scope: same id, hypothesis and evidence", () => {
    const p = project();
    const { session, carried } = learn(p, "learner1");
    expect(carried).toMatchObject({
      author: "learn learner1",
      carried: { session: "learner1", rev: session.rev },
      evidence: { session: "learner1", events: [2] },
      trajectory: { session: "learner1", from: 1, to: 4 },
      time: session.time,
    });
    expect(carried?.edits[0]).toMatchObject({
      op: "add",
      id: session.edits[0]?.id,
      hypothesis: "the build gate passes at the first try",
      evidence: [2],
    });
    const dir = p.probation.location.dir;
    expect(dir).toBe(join(p.home, "projects", projectHash(join(p.cwd, ".relm", "harness")), "harness"));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "revisions.jsonl")).mode & 0o777).toBe(0o600);
    expect(p.projectStore.revisions()).toEqual([]);
  });

  it("leaves out a lesson the project already has, and a hand-written one", () => {
    const p = project();
    p.projectStore.commit({
      intents: [
        { op: "add", kind: "memory", title: "", content: `${LESSON.toUpperCase()}!`, source: "user" },
      ],
      author: "user",
      reason: "test",
    });
    expect(learn(p, "learner1").carried).toBeUndefined();
    const sessionDir = writeSession(p.home, p.cwd, "learner2", BASE, chat("T"));
    const store = new HarnessStore(scopeLocation("session", { ...p.ctx, sessionDir }));
    const { revision } = store.commit({
      intents: [{ op: "add", kind: "memory", title: "", content: "A note by hand.", source: "user" }],
      author: "user",
      reason: "test",
    });
    expect(carryForward(revision as Revision, { ...p.ctx, sessionDir })).toBeUndefined();
    expect(p.probation.revisions()).toEqual([]);
  });

  it("a later update of the session's lesson updates its copy on probation", () => {
    const p = project();
    const { session, sessionDir } = learn(p, "learner1");
    const id = session.edits[0]?.id as string;
    const store = new HarnessStore(scopeLocation("session", { ...p.ctx, sessionDir }));
    const { revision } = store.commit({
      intents: [{ op: "update", id, content: "The data file is data.parquet." }],
      author: "learn m",
      reason: "pass 2",
    });
    const copy = carryForward(revision as Revision, { ...p.ctx, sessionDir });
    expect(copy?.edits[0]).toMatchObject({ op: "update", id });
    expect(p.probation.state().get(id)?.entry.content).toBe("The data file is data.parquet.");
  });
});

describe("a new session's prompt", () => {
  it("carries lessons on probation under their own heading; the session that learnt one shows it as its own", () => {
    const p = project();
    const { session, sessionDir } = learn(p, "learner1");
    const entry = session.edits[0]?.after as Entry;
    const fresh = loadHarness(p.ctx);
    expect(fresh.probation.map((e) => e.id)).toEqual([entry.id]);
    expect(fresh.block).toContain(`${PROBATION_HEADING}\n`);
    expect(fresh.block.slice(fresh.block.indexOf(PROBATION_HEADING))).toContain(renderedLine(entry));
    const own = loadHarness({ ...p.ctx, sessionDir });
    expect(own.probation).toEqual([]);
    expect(own.block).not.toContain(PROBATION_HEADING);
    expect(own.block).toContain(renderedLine(entry));
  });
});

describe("verdicts on lessons on probation", () => {
  /** Two sessions before the lesson that needed three tries, the learner, then `after` sessions with it. */
  function judged(p: Project, after: (entry: Entry) => void, learner = chat("LEARN")) {
    writeSession(p.home, p.cwd, "before01", BASE, climb("T", 2));
    writeSession(p.home, p.cwd, "before02", BASE, climb("T", 2));
    const { carried } = learn(p, "learner1", learner);
    const entry = carried?.edits[0]?.after as Entry;
    after(entry);
    return { carried: carried as Revision, entry };
  }
  const evaluate = (p: Project) =>
    evaluateVerdicts(p.ctx, { apply: true, scopes: ["probation"] }).find((e) => e.scope === "probation");

  it("promotes a lesson after which the gate passes sooner to the project scope, and takes it off probation", () => {
    const p = project();
    const { carried, entry } = judged(p, (e) => {
      writeSession(p.home, p.cwd, "after001", withLesson(e), climb("T", 0));
      writeSession(p.home, p.cwd, "after002", withLesson(e), climb("T", 0));
    });
    const result = evaluate(p);
    expect(result).toMatchObject({ written: true, judgement: { verdict: "improved" } });
    const [written] = p.projectStore.revisions() as [Revision];
    expect(result?.promoted).toBe(written.rev);
    expect(written).toMatchObject({
      author: "verdict",
      verdict: { rev: carried.rev, scope: "probation", session: "learner1", verdict: "improved" },
    });
    expect(written.edits[0]).toMatchObject({
      op: "add",
      id: entry.id,
      hypothesis: "the build gate passes at the first try",
    });
    expect(p.probation.state().size).toBe(0);
    const log = new VerdictLog(p.probation.location, p.home);
    expect(log.records().map((r) => r.type)).toEqual(["promotion", "verdict"]);
    expect(log.latest(carried.rev, "verdict")).toMatchObject({ promoted: written.rev });
    // Settled: judging again writes nothing and promotes nothing twice.
    expect(evaluate(p)).toMatchObject({ written: false, promoted: written.rev });
    expect(p.projectStore.revisions()).toHaveLength(1);
  });

  it("reverts a lesson after which the gate stops passing, naming the gate runs", () => {
    const p = project();
    const { carried } = judged(p, (e) => {
      writeSession(p.home, p.cwd, "after001", withLesson(e), climb("T", 1, false));
      writeSession(p.home, p.cwd, "after002", withLesson(e), climb("T", 1, false));
    });
    const result = evaluate(p);
    expect(result?.judgement.verdict).toBe("regressed");
    const undo = p.probation.revisions().at(-1) as Revision;
    expect(result?.reverted).toBe(undo.rev);
    expect(undo).toMatchObject({ revert: carried.rev, author: "verdict", verdict: { verdict: "regressed" } });
    expect(undo.reason).toMatch(/after: after001 #\d+ fail #\d+ fail; after002/);
    expect(p.probation.state().size).toBe(0);
    expect(p.projectStore.revisions()).toEqual([]);
  });

  it("retires a lesson not shown to help once the window after is full", () => {
    const p = project();
    const { carried } = judged(p, (e) => {
      for (let i = 1; i <= 5; i++) writeSession(p.home, p.cwd, `after00${i}`, withLesson(e), climb("T", 2));
    });
    const result = evaluate(p);
    expect(result).toMatchObject({ retired: true, judgement: { verdict: "neutral", final: true } });
    const undo = p.probation.revisions().at(-1) as Revision;
    expect(undo.revert).toBe(carried.rev);
    expect(undo.reason).toContain(`retired ${carried.rev}: not shown to help in 5 attempts`);
    expect(undo.verdict?.verdict).toBe("neutral");
  });

  it("the learner's own work after the lesson does not count: it is judged on later sessions", () => {
    const p = project();
    judged(p, () => {}, [...chat("LEARN"), ...climb("T", 0), ...climb("T", 0)]);
    expect(evaluate(p)?.judgement.verdict).toBe("pending");
  });

  it("two promotions racing: the one that finds the lesson already promoted records where, not a duplicate", () => {
    const p = project();
    const helped = (e: Entry) => {
      writeSession(p.home, p.cwd, "after001", withLesson(e), climb("T", 0));
      writeSession(p.home, p.cwd, "after002", withLesson(e), climb("T", 0));
    };
    const { carried, entry } = judged(p, helped);
    // The other promotion (a session's verdict) has written the project revision and not yet taken the
    // lesson off probation, nor recorded its verdict: the state a racing verdict sees.
    const { revision: first } = p.projectStore.commit({
      intents: [{ ...entry, op: "add", id: entry.id, created: entry.created }],
      author: "verdict",
      reason: `promote ${entry.id} from probation: improved`,
      evidence: carried.evidence,
    });
    const won = first as Revision;
    const result = evaluate(p);
    expect(result).toMatchObject({
      written: true,
      judgement: { verdict: "improved" },
      alreadyPromoted: { revision: won.rev, by: "verdict", time: won.time },
    });
    expect(result?.promoted).toBeUndefined();
    expect(result?.waiting).toBeUndefined();
    expect(p.projectStore.revisions()).toHaveLength(1);
    const log = new VerdictLog(p.probation.location, p.home);
    const record = log.latest(carried.rev, "verdict");
    expect(record).toMatchObject({ alreadyPromoted: { revision: won.rev, by: "verdict" } });
    expect(JSON.stringify(record)).not.toMatch(/equal entry|duplicates/);
    // It leaves probation once (whichever promotion gets there first); settled: judging again writes nothing.
    expect(p.probation.state().has(entry.id)).toBe(false);
    expect(p.probation.revisions().filter((r) => r.reason.startsWith("promoted to"))).toHaveLength(1);
    expect(evaluate(p)).toMatchObject({ written: false, alreadyPromoted: { revision: won.rev } });
  });

  it("a verdict that comes after a promotion it did not see (written, off probation, not yet recorded) says already promoted", () => {
    const p = project();
    const { carried, entry } = judged(p, (e) => {
      writeSession(p.home, p.cwd, "after001", withLesson(e), climb("T", 0));
      writeSession(p.home, p.cwd, "after002", withLesson(e), climb("T", 0));
    });
    // A person's promote, complete: copied to the project, off probation, a promotion record, no verdict.
    const promoted = promoteEntries({
      ctx: p.ctx,
      source: p.probation,
      revision: carried,
      entries: [entry],
      to: "project",
      author: "user",
      reason: "by hand",
      evidence: carried.evidence,
    });
    const won = promoted.written as Revision;
    expect(p.probation.state().has(entry.id)).toBe(false);
    const result = evaluate(p);
    expect(result).toMatchObject({ written: true, alreadyPromoted: { revision: won.rev, by: "user" } });
    expect(p.projectStore.revisions()).toHaveLength(1);
    // A second promote of the same entries writes nothing and names the revision it is in.
    const again = promoteEntries({
      ctx: p.ctx,
      source: p.probation,
      revision: carried,
      entries: [entry],
      to: "project",
      author: "verdict",
      reason: "again",
      evidence: carried.evidence,
    });
    expect(again).toEqual({ already: { revision: won.rev, by: "user", time: won.time } });
    expect(alreadyPromotedLine(entry.id, "project", again.already as AlreadyPromoted)).toBe(
      `${entry.id} was already promoted: it is in the project scope since revision ${won.rev} (by user, ${won.time}); nothing written\n`,
    );
  });

  it("waits for a passing replay check when it was learnt in an autonomous run, then promotes", () => {
    const p = project();
    const { carried } = judged(
      p,
      (e) => {
        writeSession(p.home, p.cwd, "after001", withLesson(e), climb("T", 0));
        writeSession(p.home, p.cwd, "after002", withLesson(e), climb("T", 0));
      },
      climb("LEARN", 1),
    );
    const first = evaluate(p);
    expect(first?.waiting).toContain(
      `needs a passing replay check first: relm harness verify ${carried.rev} --scope probation`,
    );
    expect(first?.written).toBe(true);
    expect(p.projectStore.revisions()).toEqual([]);
    expect(evaluate(p)?.written).toBe(false); // the same wait is not written twice
    new VerdictLog(p.probation.location, p.home).append({
      v: VERDICT_LOG_VERSION,
      type: "verify",
      t: tick(),
      rev: carried.rev,
      passed: true,
      summary: "verify passed: with it gates passed in 1 turn",
      session: "learner1",
      model: "m",
      tasks: ["LEARN"],
      gates: ["make check"],
      workspace: { source: "copy" },
      budget: {},
      with: {
        outcome: "gates passed",
        gatesPassed: true,
        turns: 1,
        tokens: 1,
        cost: null,
        elapsedMs: 1,
        session: "x",
      },
      without: {
        outcome: "gates passed",
        gatesPassed: true,
        turns: 3,
        tokens: 3,
        cost: null,
        elapsedMs: 1,
        session: "y",
      },
    });
    const second = evaluate(p);
    expect(second?.promoted).toBeDefined();
    expect(p.projectStore.revisions()[0]?.verdict?.verify?.summary).toContain("verify passed");
  });

  it("a pinned lesson is judged and left alone until released; a locked project scope defers promotion", () => {
    const p = project();
    const { carried, entry } = judged(p, (e) => {
      writeSession(p.home, p.cwd, "after001", withLesson(e), climb("T", 0));
      writeSession(p.home, p.cwd, "after002", withLesson(e), climb("T", 0));
    });
    const log = new VerdictLog(p.probation.location, p.home);
    const pin = (pinned: boolean) =>
      log.append({
        v: VERDICT_LOG_VERSION,
        type: "pin",
        t: tick(),
        rev: carried.rev,
        entry: entry.id,
        pinned,
      });
    pin(true);
    expect(evaluate(p)).toMatchObject({ pinned: true, judgement: { verdict: "improved" } });
    expect(p.probation.state().size).toBe(1);
    pin(false);
    const unlock = lockProjectScope(p.cwd, "locked for the test");
    try {
      expect(evaluate(p)?.waiting).toContain("the project scope cannot be written in this session");
      expect(p.probation.state().size).toBe(1);
    } finally {
      unlock();
    }
    expect(evaluate(p)?.promoted).toBeDefined();
    expect(p.probation.state().size).toBe(0);
  });

  it("a session's regression reverted by its verdict takes the copy on probation with it", () => {
    const p = project();
    const entry: Entry = {
      id: "mem-abc123",
      kind: "memory",
      title: "",
      content: LESSON,
      source: "refine",
      created: "2026-01-01T00:00:00.000Z",
      updated: "2026-01-01T00:00:00.000Z",
    };
    // Two passing tasks, then the lesson (in its prompt from a compaction), then a gate that stops passing.
    const sessionDir = writeSession(p.home, p.cwd, "learner1", BASE, [
      ...climb("T", 0),
      ...climb("T", 0),
      { type: "system_prompt", text: `${BASE}\n${renderedLine(entry)}` },
      ...climb("T", 1, false),
      ...climb("T", 1, false),
    ]);
    const lines = readFileSync(join(sessionDir, "journal.jsonl"), "utf8").trim().split("\n");
    const compacted = lines.map((l) => JSON.parse(l)).filter((e) => e.type === "system_prompt")[1];
    const store = new HarnessStore(scopeLocation("session", { ...p.ctx, sessionDir }));
    const { revision } = store.commit({
      intents: [{ op: "add", kind: "memory", title: "", content: LESSON, source: "refine", id: entry.id }],
      author: "learn m",
      reason: "pass",
      evidence: { session: "learner1", events: [2] },
      now: new Date(Date.parse(compacted.t) - 1000),
    });
    const carried = carryForward(revision as Revision, { ...p.ctx, sessionDir }) as Revision;
    expect(carried).toBeDefined();
    const [result] = evaluateVerdicts({ ...p.ctx, sessionDir }, { apply: true, scopes: ["session"] });
    expect(result).toMatchObject({ scope: "session", judgement: { verdict: "regressed" } });
    expect(p.probation.revisions().at(-1)).toMatchObject({ revert: carried.rev, author: "verdict" });
    expect(p.probation.state().size).toBe(0);
  });
});
