import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HarnessStore, type Revision, scopeLocation } from "../../../src/learning/store/index.js";
import type { ScriptContext, ScriptStep } from "../../../src/scripted/index.js";
import { runRelm } from "../../support/cli.js";
import {
  configLesson,
  edits,
  eventNumbers,
  isRefine,
  listedEntries,
  PARSE_CONFIG_STEPS,
  quoteOf,
  sessionIds,
  snapshot,
} from "../../support/harness.js";
import { byTask } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";

const startRig = useRigs();

/** The agents' scripts, plus one function answering refine requests. */
function scripted(
  agents: Parameters<typeof byTask>[0],
  refine: (ctx: ScriptContext) => ScriptStep | Promise<ScriptStep>,
) {
  const main = byTask(agents);
  return async (ctx: ScriptContext) => (isRefine(ctx) ? refine(ctx) : main(ctx));
}

const PARSE_TASK = { "ROOT: parse the config": PARSE_CONFIG_STEPS };

/**
 * Five edits: a new memory and an update of an existing one (both with real evidence and quotes), one
 * citing event 999, one quoting words its cited event does not hold, one quoting nothing.
 */
function fiveEdits(ctx: ScriptContext): ScriptStep {
  const [_failed] = eventNumbers(ctx, "output (error");
  const [, fixed] = eventNumbers(ctx, "cell:");
  const [existing] = listedEntries(ctx);
  const [task] = eventNumbers(ctx, "user:");
  return edits([
    configLesson(ctx),
    {
      op: "update",
      id: existing,
      content: "Run the tests with `npm test`, never `npx jest`.",
      evidence: [fixed],
      quote: quoteOf(ctx, fixed),
      hypothesis: "the tests run first time",
    },
    {
      op: "add",
      kind: "memory",
      content: "The data folder is read-only.",
      evidence: [999],
      quote: "Permission denied",
      hypothesis: "h",
    },
    // A claim the cited event does not support: it cites the task, whose words do not say it.
    {
      op: "add",
      kind: "memory",
      content: "The deploy server is in Frankfurt.",
      evidence: [task],
      quote: "the deploy server is in Frankfurt",
      hypothesis: "h",
    },
    { op: "add", kind: "memory", content: "Configs are small.", evidence: [task], hypothesis: "h" },
  ]);
}

async function sessionWithWork(rig: Rig): Promise<string> {
  const result = await runRelm(["run", "ROOT: parse the config"], { env: rig.env, cwd: rig.cwd });
  expect(result.code, result.stderr).toBe(0);
  return sessionIds(rig.home).at(-1) as string;
}

const project = (rig: Rig) => new HarnessStore(scopeLocation("project", { cwd: rig.cwd, home: rig.home }));
/** The derived state: every entry in full (which revision last touched it aside). */
const entriesOf = (store: HarnessStore) =>
  [...store.state().values()].map((s) => s.entry).sort((a, b) => a.id.localeCompare(b.id));

describe("relm refine", () => {
  it("rejects edits citing a missing event, quoting words their event lacks or quoting nothing; applies the other two as one revision; revert restores the state", async () => {
    const rig = await startRig("openai", { script: scripted(PARSE_TASK, fiveEdits) });
    const added = await runRelm(["harness", "add", "memory", "Run the tests with npx jest."], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(added.code, added.stderr).toBe(0);
    const id = await sessionWithWork(rig);
    const before = entriesOf(project(rig));

    const refined = await runRelm(["refine", id.slice(0, 5), "--apply", "--scope", "project"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(refined.code, refined.stderr).toBe(0);
    expect(refined.stdout).toMatch(
      new RegExp(
        `rejected edit 3: cites event 999, which does not exist in session ${id} \\(events 1–\\d+\\)`,
      ),
    );
    expect(refined.stdout).toMatch(
      /rejected edit 4: quote "the deploy server is in Frankfurt" is not found in the cited event \d+/,
    );
    expect(refined.stdout).toMatch(/rejected edit 5: quotes nothing/);
    expect(refined.stdout).toContain("+ add memory");
    expect(refined.stdout).toContain("-   Run the tests with npx jest.");
    expect(refined.stdout).toContain("+   Run the tests with `npm test`, never `npx jest`.");

    // Refined again with nothing new: the header does not name a window of events 0–0.
    const again = await runRelm(["refine", id, "--dry-run", "--scope", "project"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(again.stdout).toContain(`refine of session ${id} (no new events) with scripted`);
    expect(again.stdout).toContain("nothing proposed: no new events");

    const revisions = project(rig).revisions();
    expect(revisions).toHaveLength(2);
    const rev = revisions[1] as Revision;
    expect(rev.edits.map((e) => e.op)).toEqual(["add", "update"]);
    expect(rev.parent).toBe(revisions[0]?.rev);
    expect(rev.evidence?.session).toBe(id);
    expect(rev.trajectory).toMatchObject({ session: id, from: 1 });
    expect(JSON.stringify(rev)).not.toContain("read-only");

    const log = await runRelm(["harness", "log", "--scope", "project"], { env: rig.env, cwd: rig.cwd });
    expect(log.stdout).toContain(`${rev.rev}  #2`);
    expect(log.stdout).toContain(`refine scripted  1 add, 1 update  refine of session ${id}`);
    const shown = await runRelm(["harness", "show", rev.rev], { env: rig.env, cwd: rig.cwd });
    expect(shown.stdout).toContain("evidence: session");
    expect(shown.stdout).toContain('"content":"Run the tests with npx jest."');

    const reverted = await runRelm(["harness", "revert", rev.rev.slice(0, 4)], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(reverted.code, reverted.stderr).toBe(0);
    expect(entriesOf(project(rig))).toEqual(before);
    expect(project(rig).revisions().at(-1)).toMatchObject({ revert: rev.rev, seq: 3 });
  });

  it("refuses to revert a revision whose entry was changed later, naming that revision, unless --force", async () => {
    const rig = await startRig("anthropic", { script: scripted(PARSE_TASK, fiveEdits) });
    await runRelm(["harness", "add", "memory", "Run the tests with npx jest."], {
      env: rig.env,
      cwd: rig.cwd,
    });
    const id = await sessionWithWork(rig);
    const refined = await runRelm(["refine", id, "--apply", "--scope", "project"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(refined.code, refined.stderr).toBe(0);
    const [first, refine] = project(rig).revisions();
    const addedId = refine?.edits[0]?.id as string;

    const removed = await runRelm(["harness", "rm", addedId], { env: rig.env, cwd: rig.cwd });
    expect(removed.code, removed.stderr).toBe(0);
    const later = project(rig).revisions().at(-1) as Revision;

    const refused = await runRelm(["harness", "revert", refine?.rev as string], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the later revision ${later.rev}`);
    expect(refused.stderr).toContain(addedId);
    expect(project(rig).revisions()).toHaveLength(3);

    const forced = await runRelm(["harness", "revert", refine?.rev as string, "--force"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(forced.code, forced.stderr).toBe(0);
    // Back to what the refinement started from: the hand-written entry as it was, the new one gone.
    const state = entriesOf(project(rig));
    expect(state).toEqual(first?.edits.map((e) => e.after));
  });

  it("--dry-run shows the diff and changes nothing on disk; without --apply a piped run applies nothing", async () => {
    const rig = await startRig("openai", {
      script: scripted(PARSE_TASK, fiveEdits),
      onExhausted: "repeat-last",
    });
    await runRelm(["harness", "add", "memory", "Run the tests with npx jest."], {
      env: rig.env,
      cwd: rig.cwd,
    });
    const id = await sessionWithWork(rig);
    const before = snapshot(rig.home, rig.cwd);

    const dry = await runRelm(["refine", id, "--dry-run", "--scope", "project"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("+ add memory");
    expect(dry.stdout).toContain("dry run: nothing was written");
    expect(snapshot(rig.home, rig.cwd)).toEqual(before);

    const piped = await runRelm(["refine", id, "--scope", "project"], { env: rig.env, cwd: rig.cwd });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain("not applied: run again with --apply");
    expect(snapshot(rig.home, rig.cwd)).toEqual(before);

    const both = await runRelm(["refine", id, "--dry-run", "--apply"], { env: rig.env, cwd: rig.cwd });
    expect(both.code).toBe(2);

    // Budget flags as on relm run: a call the token budget cannot cover is not made; bad values are usage errors.
    const calls = rig.bodies().length;
    const capped = await runRelm(["refine", id, "--dry-run", "--max-tokens", "5"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(capped.code, capped.stderr).toBe(0);
    expect(capped.stdout).toContain("not run:");
    expect(rig.bodies().length).toBe(calls);
    const bad = await runRelm(["refine", id, "--max-cost", "lots"], { env: rig.env, cwd: rig.cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--max-cost must be a positive number");
  });

  it("two processes refining one scope at once: both revisions land, in order, nothing lost", async () => {
    let arrived = 0;
    let release: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      release = resolve;
    });
    const rig = await startRig("openai", {
      script: scripted(
        {
          "ROOT: first task": [{ code: "print('one')" }, { text: "one" }],
          "ROOT: second task": [{ code: "print('two')" }, { text: "two" }],
        },
        async (ctx) => {
          // Hold each answer until both refinements have read the log: both work from the same parent.
          arrived += 1;
          if (arrived === 2) release();
          await both;
          const [cell] = eventNumbers(ctx, "cell:");
          const which = (ctx.lastUserText ?? "").includes("ROOT: first task") ? "first" : "second";
          return edits([
            {
              op: "add",
              kind: "memory",
              content: `Lesson from the ${which} task.`,
              evidence: [cell],
              quote: quoteOf(ctx, cell),
              hypothesis: "the task goes faster",
            },
          ]);
        },
      ),
    });
    for (const task of ["ROOT: first task", "ROOT: second task"]) {
      const r = await runRelm(["run", task], { env: rig.env, cwd: rig.cwd });
      expect(r.code, r.stderr).toBe(0);
    }
    const [a, b] = sessionIds(rig.home);
    const results = await Promise.all(
      [a, b].map((id) =>
        runRelm(["refine", id as string, "--apply", "--scope", "project"], { env: rig.env, cwd: rig.cwd }),
      ),
    );
    for (const r of results) expect(r.code, r.stderr + r.stdout).toBe(0);

    const lines = readFileSync(
      join(scopeLocation("project", { cwd: rig.cwd, home: rig.home }).dir, "revisions.jsonl"),
      "utf8",
    )
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Revision);
    expect(lines.map((r) => r.seq)).toEqual([1, 2]);
    expect(lines[0]?.parent).toBeNull();
    expect(lines[1]?.parent).toBe(lines[0]?.rev);
    const contents = [...project(rig).state().values()].map((s) => s.entry.content).sort();
    expect(contents).toEqual(["Lesson from the first task.", "Lesson from the second task."]);
  });
});

describe("relm refine of a sub-agent", () => {
  it("takes the id relm printed for the child: refines from the child's work into its session's scope", async () => {
    const rig = await startRig("openai", {
      script: scripted(
        {
          "CHILD: parse the config": PARSE_TASK["ROOT: parse the config"],
          "ROOT: delegate": [{ code: 'print(rlm("CHILD: parse the config"))' }, { text: "delegated" }],
        },
        (ctx) => edits([configLesson(ctx)]),
      ),
      onExhausted: "repeat-last",
    });
    const run = await runRelm(["run", "ROOT: delegate"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    const [root] = sessionIds(rig.home) as [string];
    // The id the progress view names the child by ("sub-agent child-1 (ID)").
    const child = run.stderr.match(/sub-agent \S+ \((\w+)\)/)?.[1] as string;
    expect(child).toMatch(/^\w{8}$/);
    expect(child).not.toBe(root);

    // "No session matches" before: only top-level sessions were looked up. A prefix is taken too.
    const refined = await runRelm(["refine", child.slice(0, 6), "--apply"], { env: rig.env, cwd: rig.cwd });
    expect(refined.code, refined.stderr).toBe(0);
    expect(refined.stdout).toMatch(/applied as revision \w+ in the session scope/);
    expect(refined.stdout).toContain(`refine of session ${child}`);
    // Its evidence was the child's cells, which the root's journal does not hold.
    const prompt = rig.model.requests.find((r) => isRefine(r) && r.rawBody.includes("Propose harness edits"));
    expect(prompt?.rawBody).toContain("json.loads");
    // The session scope of every agent of a tree is its root session's.
    const session = new HarnessStore(
      scopeLocation("session", {
        cwd: rig.cwd,
        home: rig.home,
        sessionDir: join(rig.home, "sessions", root),
      }),
    );
    expect([...session.state().values()].map((s) => s.entry.content)).toEqual([
      "config.txt holds a Python dict literal, not JSON: read it with ast.literal_eval.",
    ]);
    // The harness commands' --session takes the child's id for that scope too.
    const log = await runRelm(["harness", "log", "--scope", "session", "--session", child], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain(`refine of session ${child}`);
  });
});
