// Lessons carried forward on probation (issue 21, item 2; docs/harness.md, "Probation"): what a session
// learns, the project's next sessions start with, marked as unproven; their verdicts promote or revert it
// without a command; a person can still promote, reject or pin it. Scripted model over HTTP, real
// kernels, real gate commands.
import { describe, expect, it } from "vitest";
import { PROBATION_HEADING, type Revision } from "../../../src/learning/store/index.js";
import { systemOf } from "../../support/harness.js";
import { type JournalLine, readJournalLines } from "../../support/journal.js";
import {
  GATE,
  REPORT,
  relmIn as relm,
  reportScript,
  runSession as run,
  probationStores as stores,
} from "../../support/probation.js";
import { type Rig, useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const LEARNER = "LEARN: count to three";
const LEARN_CONFIG = { config: { learn: { every_turns: 2, at_compaction: false } } };

/**
 * The learner (LEARNER, no gates) runs three cells; its learning pass's refine model proposes `lesson`
 * once. Every other task writes `content(system prompt)` to out.txt, then says so.
 */
function script(lesson: string, content: (system: string) => string) {
  return reportScript(lesson, content, (ctx, messages) => {
    if (!ctx.rawBody.includes(LEARNER)) return undefined;
    const done = messages.filter((m) => m.role === "tool").length;
    return done < 3 ? { code: `print(${done + 1})` } : { text: "counted" };
  });
}

const gated = (failures: number) => ["--gate", GATE, "--max-gate-failures", String(failures), REPORT];
const learner = (rig: Rig) => run(rig, ["--learn", LEARNER], 0);
const journal = (rig: Rig, id: string): JournalLine[] => readJournalLines(rig.home, id);

describe("lessons on probation", () => {
  it("a session learns a lesson; the next session in the project starts with it on probation, and a person can pin, reject, bring back and promote it", async () => {
    const LESSON = "COUNT-LESSON: out.txt is read by the report gate.";
    const rig = await startRig("openai", { script: script(LESSON, () => "good") }, LEARN_CONFIG);
    const a = await learner(rig);
    const pass = journal(rig, a.id).find((e) => e.type === "learn" && e.outcome === "applied") as
      | (JournalLine & { revision: string; applied: { id: string }[] })
      | undefined;
    expect(pass).toBeDefined();
    const id = pass?.applied[0]?.id as string;
    const [carried] = stores(rig).probation.revisions() as [Revision];
    expect(carried).toMatchObject({
      author: `learn ${a.id}`,
      carried: { session: a.id, rev: pass?.revision },
    });
    expect(carried.edits[0]).toMatchObject({
      op: "add",
      id,
      hypothesis: "the report gate passes at the first try",
    });
    expect(stores(rig).project.revisions()).toEqual([]);

    // A new session, no flags: the lesson in its very first request, under the probation heading.
    const b = await run(rig, [REPORT], 0);
    const system = systemOf(b.first?.body);
    const probation = system.slice(system.indexOf(PROBATION_HEADING));
    expect(system).toContain(PROBATION_HEADING);
    expect(probation).toContain(`- [${id}] ${LESSON}`);
    expect(b.stderr).toContain(
      "✎ starting with 1 lesson on probation from earlier sessions — relm harness list --scope probation",
    );
    expect(journal(rig, b.id).find((e) => e.type === "harness_probation")).toMatchObject({ entries: [id] });

    const listed = await relm(rig, ["harness", "list", "--scope", "probation"]);
    expect(listed.stdout).toContain(`${id}  probation  memory`);

    const pinned = await relm(rig, ["harness", "pin", id.slice(0, 7)]);
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(pinned.stdout).toContain(`pinned ${id}: it stays on probation`);
    const stats = await relm(rig, ["harness", "stats", "--scope", "probation"]);
    expect(stats.stdout).toMatch(new RegExp(`${id}\\s+probation\\s+memory.*\\s+pinned\\n`));
    expect(stats.stdout).toContain("state: pinned on probation");
    expect((await relm(rig, ["harness", "pin", id, "--off"])).stdout).toContain(`released ${id}`);

    for (const command of ["promote", "reject", "pin"]) {
      const unknown = await relm(rig, ["harness", command, "mem-nosuch"]);
      expect(unknown.code, command).toBe(1);
      expect(unknown.stderr).toContain('relm: no entry "mem-nosuch" on probation in this project');
      expect(unknown.stderr).not.toContain("    at ");
    }
    const help = await relm(rig, ["harness", "reject", "--help"]);
    expect(help.stdout).toContain("take a lesson off probation");

    const rejected = await relm(rig, ["harness", "reject", id, "--reason", "not how we do it"]);
    expect(rejected.code, rejected.stderr).toBe(0);
    const undo = stores(rig).probation.revisions().at(-1) as Revision;
    expect(undo.reason).toBe(`rejected ${id} on probation: not how we do it`);
    expect(stores(rig).probation.state().size).toBe(0);
    const c = await run(rig, [REPORT], 0);
    expect(systemOf(c.first?.body)).not.toContain(PROBATION_HEADING);
    expect(c.stderr).not.toContain("on probation");

    const back = await relm(rig, ["harness", "revert", undo.rev, "--scope", "probation"]);
    expect(back.code, back.stderr).toBe(0);
    const promoted = await relm(rig, ["harness", "promote", id]);
    expect(promoted.code, promoted.stderr).toBe(0);
    const [written] = stores(rig).project.revisions() as [Revision];
    expect(promoted.stdout).toContain(
      `promoted ${id} from probation to the project scope as revision ${written.rev}`,
    );
    expect(promoted.stdout).toContain("verdict so far: ");
    expect(written.edits[0]).toMatchObject({
      op: "add",
      id,
      hypothesis: "the report gate passes at the first try",
    });
    expect(stores(rig).probation.state().size).toBe(0);
    const d = await run(rig, [REPORT], 0);
    expect(systemOf(d.first?.body)).toContain(`- [${id}] ${LESSON}`);
    expect(systemOf(d.first?.body)).not.toContain(PROBATION_HEADING);
  }, 300_000);

  it("a lesson after which the gate stops passing in later sessions is reverted without a command, with the reason journaled", async () => {
    const LESSON = "REPORT-LESSON: the report must say bad.";
    const rig = await startRig(
      "openai",
      { script: script(LESSON, (system) => (system.includes(LESSON) ? "bad" : "good")) },
      LEARN_CONFIG,
    );
    await run(rig, gated(2), 0);
    await run(rig, gated(2), 0);
    await learner(rig);
    const [carried] = stores(rig).probation.revisions() as [Revision];
    const s3 = await run(rig, gated(2), 4);
    expect(stores(rig).probation.revisions()).toHaveLength(1); // one attempt with it: not enough to judge
    expect(s3.stderr).toContain("✎ starting with 1 lesson on probation");
    const s4 = await run(rig, gated(2), 4);

    const undo = stores(rig).probation.revisions().at(-1) as Revision;
    expect(undo).toMatchObject({ revert: carried.rev, author: "verdict", verdict: { verdict: "regressed" } });
    expect(undo.reason).toContain(
      `automatic revert of ${carried.rev}: regressed (fewer attempts reached a passing gate)`,
    );
    expect(undo.reason).toContain("green 2/2 → 0/2");
    const id = carried.edits[0]?.id as string;
    expect(journal(rig, s4.id).find((e) => e.type === "harness_verdict")).toMatchObject({
      scope: "probation",
      rev: carried.rev,
      verdict: "regressed",
      reverted: undo.rev,
      entries: [id],
    });
    expect(s4.stderr).toContain(
      `⚖ lesson ${id} on probation (revision ${carried.rev}) regressed — reverted as ${undo.rev}`,
    );
    expect(stores(rig).probation.state().size).toBe(0);
    expect(stores(rig).project.revisions()).toEqual([]);
    // Gone from the next session's prompt; its gate passes again.
    const s5 = await run(rig, gated(2), 0);
    expect(systemOf(s5.first?.body)).not.toContain(LESSON);
  }, 300_000);

  it("a lesson after which the gate passes in fewer turns is promoted to the project scope without a command", async () => {
    const LESSON = "BUILD-LESSON: out.txt must say good.";
    let tries = 0;
    const rig = await startRig(
      "openai",
      {
        script: script(LESSON, (system) => {
          if (system.includes(LESSON)) return "good";
          tries += 1;
          return tries % 3 === 0 ? "good" : `wrong-${tries}`;
        }),
      },
      LEARN_CONFIG,
    );
    await run(rig, gated(5), 0);
    await run(rig, gated(5), 0);
    await learner(rig);
    const [carried] = stores(rig).probation.revisions() as [Revision];
    const id = carried.edits[0]?.id as string;
    await run(rig, gated(5), 0);
    const s4 = await run(rig, gated(5), 0);

    const [written] = stores(rig).project.revisions() as [Revision];
    expect(written).toMatchObject({
      author: "verdict",
      verdict: { rev: carried.rev, scope: "probation", verdict: "improved" },
    });
    expect(written.verdict?.evidence).toContain("turns to green 6.0 → 2.0");
    expect(written.edits[0]).toMatchObject({
      op: "add",
      id,
      hypothesis: "the report gate passes at the first try",
    });
    expect(stores(rig).probation.state().size).toBe(0);
    expect(journal(rig, s4.id).find((e) => e.type === "harness_verdict")).toMatchObject({
      scope: "probation",
      verdict: "improved",
      promoted: written.rev,
    });
    expect(s4.stderr).toContain(
      `⚖ lesson ${id} on probation (revision ${carried.rev}) improved — promoted to the project scope as ${written.rev}`,
    );
    // Judged where it came from: in the project scope it counts from its promotion on, so no second verdict.
    expect(s4.stderr).not.toContain(`harness edit ${written.rev}`);
    const stats = await relm(rig, ["harness", "stats"]);
    expect(stats.stdout).toMatch(new RegExp(`${id}\\s+project\\s+memory.*\\s+promoted\\n`));
    expect(stats.stdout).toContain(`promoted to the project scope as ${written.rev}`);
    const s5 = await run(rig, gated(5), 0);
    expect(systemOf(s5.first?.body)).toContain(`- [${id}] ${LESSON}`);
    expect(systemOf(s5.first?.body)).not.toContain(PROBATION_HEADING);
  }, 300_000);
});
