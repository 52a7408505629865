// Issue 21, items 4 and 7, where the user sees them: the built binary against a scripted model over
// HTTP, real kernels. A pass applies at most 5 edits; a scope refuses what it has no room for; a refine
// answer is read up to 2,000 tokens; a damaged revision log costs its bad lines, not the sessions; a
// revision id finds its session's scope without --scope.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HarnessStore, type Intent, scopeLocation } from "../../../src/learning/store/index.js";
import type { ScriptContext, ScriptStep } from "../../../src/scripted/index.js";
import { runRelm, tempDir } from "../../support/cli.js";
import { edits, eventNumbers, isRefine, quoteOf, sessionIds, systemOf } from "../../support/harness.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { type Rig, useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const project = (rig: Rig) => new HarnessStore(scopeLocation("project", { cwd: rig.cwd, home: rig.home }));
const memory = (content: string): Intent => ({
  op: "add",
  kind: "memory",
  title: "",
  content,
  source: "user",
});

/** Three cells and an answer; the refine model replies once with 30 lessons, then with none. */
function thirtyLessons() {
  let step = 0;
  let asked = 0;
  return (ctx: ScriptContext): ScriptStep => {
    if (isRefine(ctx)) {
      if (asked++ > 0) return edits([]);
      const [cell] = eventNumbers(ctx, "cell:");
      return edits(
        Array.from({ length: 30 }, (_, i) => ({
          op: "add",
          kind: "memory",
          content: `BOUND-${i + 1}: counter ${i + 1} starts at one.`,
          evidence: [cell],
          quote: quoteOf(ctx, cell),
          hypothesis: `counter ${i + 1} is right the first time`,
        })),
      );
    }
    return ++step <= 3 ? { code: `print(${step})` } : { text: "counted" };
  };
}

describe("bounded", () => {
  it("a learning pass whose refine model replies with 30 edits applies the first 5 and says the rest were over the cap", async () => {
    const rig = await startRig(
      "openai",
      { script: thirtyLessons() },
      { config: { learn: { every_turns: 2, at_compaction: false } } },
    );
    const result = await runRelm(["run", "--learn", "TASK: count"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    const { lines, dir } = onlyJournal(rig.home);
    const [pass] = lines.filter((l) => l.type === "learn") as (JournalLine & {
      applied: { content: string }[];
      rejected: { index: number; reason: string; capped?: boolean }[];
      proposed: number;
      revision: string;
    })[];
    expect(pass?.proposed).toBe(30);
    expect(pass?.applied.map((a) => a.content.split(":")[0])).toEqual([
      "BOUND-1",
      "BOUND-2",
      "BOUND-3",
      "BOUND-4",
      "BOUND-5",
    ]);
    expect(pass?.rejected).toHaveLength(25);
    expect(pass?.rejected.every((r) => r.reason === "skipped: over the per-pass cap of 5")).toBe(true);
    expect(pass?.rejected.every((r) => r.capped === true)).toBe(true);
    const session = new HarnessStore(
      scopeLocation("session", { cwd: rig.cwd, home: rig.home, sessionDir: dir }),
    );
    expect(session.entries()).toHaveLength(5);
    expect(result.stderr).toContain(
      `✎ learned 5 lessons from event ${eventNumbersIn(lines)} (every turns, revision ${pass?.revision}): BOUND-1: counter 1 starts at one. (+4 more) — in force from the next request; 25 more skipped, over the per-pass cap`,
    );
  });

  it("an add that would take the memories past 6,000 characters is refused, naming the kind, the limit and the fix", async () => {
    const rig = await startRig("openai", { script: [] });
    project(rig).commit({
      intents: Array.from({ length: 12 }, (_, i) => memory(`lesson ${i} `.padEnd(500, "m"))),
      author: "user",
      reason: "fill",
    });
    const result = await runRelm(["harness", "add", "memory", "one lesson too many"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "relm: not added: the project scope's memory entries would hold 6,019 characters, over the 6,000 a scope " +
        "may hold of memory entries in all (6,000 now); make room with `relm harness rm ENTRY --scope project` " +
        "(`relm harness list --scope project` shows them)\n",
    );
    expect(project(rig).revisions()).toHaveLength(1);
  });

  it("relm refine stops reading a refine answer at 2,000 tokens when the model never stops", async () => {
    let refines = 0;
    const rig = await startRig("openai", {
      script: (ctx) => {
        if (isRefine(ctx)) {
          refines++;
          return { endless: true, text: "and on and on " };
        }
        return ctx.index === 0 ? { code: "print('hi')" } : { text: "said hi" };
      },
    });
    const run = await runRelm(["run", "TASK: say hi"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    const [id] = sessionIds(rig.home);
    const refined = await runRelm(["refine", id as string, "--apply"], { env: rig.env, cwd: rig.cwd });
    expect(refines).toBe(1);
    expect(refined.code).toBe(1);
    expect(refined.stdout).toContain(
      "nothing proposed: the refine model's answer passed the 2,000-token cap before its first edit was complete, so relm stopped reading it",
    );
  });
});

/** The cell event the refine model cited (the first cell of the session). */
function eventNumbersIn(lines: JournalLine[]): number {
  return (lines.find((l) => l.type === "cell") as JournalLine).n as number;
}

describe("robust", () => {
  it("a revision without content and a line that is not JSON: list, run and doctor name file and line; the rest loads", async () => {
    const rig = await startRig("openai", { script: [{ text: "fine" }] });
    const store = project(rig);
    const good = store.commit({
      intents: [memory("GOOD-LESSON: keep this one")],
      author: "user",
      reason: "a",
    }).revision!;
    const bad = JSON.parse(JSON.stringify(good));
    bad.rev = "rnocontnt";
    bad.seq = 2;
    bad.parent = good.rev;
    bad.edits[0].id = bad.edits[0].after.id = "mem-zzzzzz";
    delete bad.edits[0].after.content;
    appendFileSync(store.logPath, `${JSON.stringify(bad)}\n`);

    const list = await runRelm(["harness", "list"], { env: rig.env, cwd: rig.cwd });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain("GOOD-LESSON: keep this one");
    const warning = `harness log ${store.logPath}:2: left out line 2, edit 1 (mem-zzzzzz): after.content: missing`;
    expect(list.stderr).toContain(`relm: warning: ${warning}`);
    expect(list.stderr.match(/relm: warning:/g)).toHaveLength(1);

    // A line that is not JSON at all, in the middle of the log.
    appendFileSync(store.logPath, "{ this is not json\n");
    store.commit({
      intents: [memory("LATER-LESSON: written after the damage")],
      author: "user",
      reason: "b",
    });
    const run = await runRelm(["run", "TASK: anything"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`⚠ harness log ${store.logPath}:2,3: left out line 2, edit 1 (mem-zzzzzz)`);
    expect(run.stderr).toContain("line 3, not JSON (");
    const system = systemOf(rig.model.requests[0]?.body);
    expect(system).toContain("GOOD-LESSON: keep this one");
    expect(system).toContain("LATER-LESSON: written after the damage");

    const doctor = await runRelm(["doctor"], { env: rig.env, cwd: rig.cwd });
    expect(doctor.stdout).toContain(
      `warn  harness   ${store.logPath}:2: edit 1 (mem-zzzzzz): after.content: missing; left out of every session (repair or delete the line)`,
    );
    expect(doctor.stdout).toMatch(
      new RegExp(`warn {2}harness {3}${escapeRegExp(store.logPath)}:3: not JSON \\(`),
    );
  }, 60_000);

  it("show, diff, log and revert find a session's revision without --scope, and say where; a prefix of several lists them", async () => {
    const rig = await startRig("openai", { script: [{ text: "ok" }] });
    const run = await runRelm(["run", "TASK: nothing much"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    const [id] = sessionIds(rig.home) as [string];
    const added = await runRelm(
      ["harness", "add", "memory", "SESSION-LESSON: learned here", "--session", id, "--scope", "session"],
      {
        env: rig.env,
        cwd: rig.cwd,
      },
    );
    expect(added.code, added.stderr).toBe(0);
    project(rig).commit({ intents: [memory("PROJECT-LESSON")], author: "user", reason: "p" });
    const session = new HarnessStore(
      scopeLocation("session", { cwd: rig.cwd, home: rig.home, sessionDir: join(rig.home, "sessions", id) }),
    );
    const rev = session.head() as string;
    const env = { env: rig.env, cwd: rig.cwd };

    const shown = await runRelm(["harness", "show", rev], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`scope:    session (session ${id})`);
    expect(shown.stdout).toContain("SESSION-LESSON: learned here");
    const diff = await runRelm(["harness", "diff", rev.slice(0, 5)], env);
    expect(diff.stdout.split("\n")[0]).toBe(`in the session scope of session ${id}`);
    const log = await runRelm(["harness", "log"], env);
    expect(log.stdout).toContain(`session scope of session ${id} (${session.logPath}): 1 revision(s)`);

    const ambiguous = await runRelm(["harness", "show", "r"], env);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(`${rev} (session scope of session ${id})`);
    expect(ambiguous.stderr).toContain(`${project(rig).head()} (project scope)`);

    const reverted = await runRelm(["harness", "revert", rev], env);
    expect(reverted.code, reverted.stderr).toBe(0);
    expect(reverted.stdout).toMatch(
      new RegExp(`reverted ${rev} in the session scope of session ${id} as revision r`),
    );
    expect(session.entries()).toEqual([]);
    // A session of another project is not searched.
    const elsewhere = tempDir("relm-elsewhere-");
    const other = await runRelm(["harness", "show", rev], { env: rig.env, cwd: elsewhere.path });
    elsewhere.cleanup();
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`no revision "${rev}" in the user, project, probation scope(s)`);
  }, 60_000);

  it("a revision is named by its #N as `relm harness log` shows it: show, diff, revert; #N in several scopes asks which", async () => {
    const rig = await startRig("openai", { script: [{ text: "ok" }] });
    const store = project(rig);
    const first = store.commit({ intents: [memory("FIRST-LESSON")], author: "user", reason: "one" })
      .revision!;
    const second = store.commit({ intents: [memory("SECOND-LESSON")], author: "user", reason: "two" })
      .revision!;
    const env = { env: rig.env, cwd: rig.cwd };
    const log = await runRelm(["harness", "log", "--scope", "project"], env);
    expect(log.stdout).toContain(`${second.rev}  #2  `);

    const shown = await runRelm(["harness", "show", "#2"], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`revision ${second.rev} (#2`);
    const diff = await runRelm(["harness", "diff", "#1", "--scope", "project"], env);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain("FIRST-LESSON");
    // #1 is not a prefix of #10: a number names one revision of each scope, or none.
    const none = await runRelm(["harness", "show", "#3"], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no revision "#3"');

    new HarnessStore(scopeLocation("user", { cwd: rig.cwd, home: rig.home })).commit({
      intents: [memory("USER-LESSON")],
      author: "user",
      reason: "u",
    });
    const both = await runRelm(["harness", "show", "#1"], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(`${first.rev} (project scope)`);
    expect(both.stderr).toContain("--scope");
    const reverted = await runRelm(["harness", "revert", "#2", "--scope", "project"], env);
    expect(reverted.code, reverted.stderr).toBe(0);
    expect(store.entries().map((e) => e.content)).toEqual(["FIRST-LESSON"]);
  }, 60_000);
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
