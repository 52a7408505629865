// Offline-refined lessons on probation (issue 21): a lesson written after its session ended (`relm refine
// ID --apply`) is carried to the project's probation scope; the verdicts of later sessions promote or
// revert it as they do a lesson learnt during a run. Scripted model over HTTP, real kernels, real gates.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HarnessStore, type Revision, scopeLocation } from "../../../src/learning/store/index.js";
import {
  GATE,
  REPORT,
  relmIn as relm,
  runSession as run,
  reportScript as script,
  probationStores as stores,
} from "../../support/probation.js";
import { type Rig, useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const gated = ["--gate", GATE, "--max-gate-failures", "2", REPORT];

/** A session that ran the report task twice (the second time resumed): two attempts at the gate. */
async function twice(rig: Rig, code: number): Promise<string> {
  const { id } = await run(rig, gated, code);
  const again = await relm(rig, ["run", "--resume", id, ...gated]);
  expect(again.code, again.stderr).toBe(code);
  return id;
}

/** `relm refine ID --apply` after the session ended: its session revision and the copy on probation. */
async function refineOffline(rig: Rig, id: string) {
  const refined = await relm(rig, ["refine", id, "--apply"]);
  expect(refined.code, refined.stderr).toBe(0);
  const session = new HarnessStore(
    scopeLocation("session", { cwd: rig.cwd, home: rig.home, sessionDir: join(rig.home, "sessions", id) }),
  );
  const [revision] = session.revisions() as [Revision];
  const [carried] = stores(rig).probation.revisions() as [Revision];
  expect(carried.carried).toEqual({ session: id, rev: revision.rev });
  return { session, revision, carried, entry: carried.edits[0]?.id as string };
}

describe("a lesson refined after its session ended", () => {
  it("is judged on the later sessions that started with it on probation: improved, so `harness promote --session` takes it to the project scope", async () => {
    const LESSON = "OFFLINE-LESSON: out.txt must say good.";
    const rig = await startRig("openai", {
      script: script(LESSON, (system) => (system.includes(LESSON) ? "good" : "wrong")),
    });
    const s1 = await twice(rig, 4);
    const { revision, carried, entry } = await refineOffline(rig, s1);
    // Right after the refine nothing has been judged with it yet: the refusal says where it goes on.
    const now = await relm(rig, ["harness", "promote", entry, "--session", s1]);
    expect(now.code).toBe(1);
    expect(now.stderr).toContain(
      `; it is on probation in this project (revision ${carried.rev}): the next sessions start with it and their verdicts promote or revert it`,
    );
    const s2 = await run(rig, gated, 0);
    const s3 = await run(rig, gated, 0);
    expect(s2.stderr).toContain("✎ starting with 1 lesson on probation");

    // The session's own verdict: its work before the lesson, the later sessions' with it.
    const stats = await relm(rig, ["harness", "stats", "--session", s1, "--scope", "session"]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toContain(
      `${revision.rev} (session) improved (more attempts reached a passing gate)`,
    );
    expect(stats.stdout).toContain("green 0/2 → 2/2 attempts");
    expect(stats.stdout).toContain(`after: ${s2.id} #`);
    expect(stats.stdout).toContain(`; ${s3.id} #`);

    // Learnt from an autonomous run: a replay check first, then a person's promote goes through.
    const early = await relm(rig, ["harness", "promote", entry, "--session", s1]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain("needs a passing replay check first");
    expect(early.stderr).not.toContain("no evidence");
    const verify = await relm(rig, ["harness", "verify", revision.rev, "--session", s1]);
    expect(verify.code, verify.stderr + verify.stdout).toBe(0);
    const promoted = await relm(rig, ["harness", "promote", entry, "--session", s1]);
    expect(promoted.code, promoted.stderr).toBe(0);
    const [written] = stores(rig).project.revisions() as [Revision];
    expect(promoted.stdout).toContain(`promoted ${entry} to the project scope as revision ${written.rev}`);
    expect(written.verdict).toMatchObject({ rev: revision.rev, scope: "session", verdict: "improved" });
    expect(written.verdict?.evidence).toContain(s3.id);
    expect(written.edits[0]).toMatchObject({ op: "add", id: entry });
    // Its copy left probation in the same step; the next session has it in the project's part of the prompt.
    expect(stores(rig).probation.state().has(entry)).toBe(false);
    expect(stores(rig).probation.revisions().at(-1)?.reason).toContain(`as revision ${written.rev}`);
    expect(carried.rev).not.toBe(written.rev);
  }, 300_000);

  it("is judged on the later sessions that started with it on probation: regressed, so the session's revision is reverted too", async () => {
    const LESSON = "OFFLINE-LESSON: out.txt must say bad.";
    const rig = await startRig("openai", {
      script: script(LESSON, (system) => (system.includes(LESSON) ? "bad" : "good")),
    });
    const s1 = await twice(rig, 0);
    const { session, revision, carried } = await refineOffline(rig, s1);
    await run(rig, gated, 4);
    const s3 = await run(rig, gated, 4);
    // Its copy on probation: reverted by the later sessions' verdict.
    expect(stores(rig).probation.revisions().at(-1)).toMatchObject({ revert: carried.rev });
    expect(s3.stderr).toContain(`on probation (revision ${carried.rev}) regressed — reverted as`);

    // The session's own revision: judged on the same sessions, reverted as a regression.
    const stats = await relm(rig, ["harness", "stats", "--session", s1, "--scope", "session"]);
    expect(stats.code, stats.stderr).toBe(0);
    const undo = session.revisions().at(-1) as Revision;
    expect(undo).toMatchObject({
      revert: revision.rev,
      author: "verdict",
      verdict: { verdict: "regressed" },
    });
    expect(undo.reason).toContain("green 2/2 → 0/2");
    expect(stats.stdout).toContain(`${revision.rev} (session) regressed`);
    expect(stats.stdout).toContain(`reverted as ${undo.rev}`);
    expect(session.state().size).toBe(0);
  }, 300_000);
});

describe("two promotions of one lesson on probation at once", () => {
  it("end with one promotion revision; the other process says the lesson was already promoted, in which revision", async () => {
    const rig = await startRig("openai", { script: () => ({ text: "unused" }) });
    const { probation, project } = stores(rig);
    const { revision } = probation.commit({
      intents: [
        {
          op: "add",
          kind: "memory",
          title: "",
          content: "RACE-LESSON: the report is out.txt.",
          source: "refine",
        },
      ],
      author: "learn s1",
      reason: "carried forward from session s1",
      evidence: null,
      carried: { session: "s1", rev: "r0000000" },
    });
    const id = revision?.edits[0]?.id as string;
    // Two processes, each holding the store's file lock only for its own write.
    const [a, b] = await Promise.all([
      relm(rig, ["harness", "promote", id]),
      relm(rig, ["harness", "promote", id]),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const written = project.revisions();
    expect(written).toHaveLength(1);
    const won = written[0] as Revision;
    expect(won.edits).toMatchObject([{ op: "add", id }]);
    const outs = [a.stdout, b.stdout];
    const promoted = `promoted ${id} from probation to the project scope as revision ${won.rev}`;
    const already = `${id} was already promoted: it is in the project scope since revision ${won.rev} (by user, ${won.time}); nothing written`;
    expect(outs.filter((o) => o.includes(promoted))).toHaveLength(1);
    expect(outs.filter((o) => o.includes(already))).toHaveLength(1);
    for (const o of [a.stderr, b.stderr]) expect(o).not.toMatch(/equal entry|duplicates|no entry/);
    // Off probation once.
    expect(probation.state().has(id)).toBe(false);
    expect(probation.revisions().filter((r) => r.reason.startsWith("promoted to"))).toHaveLength(1);
  }, 120_000);
});
