import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KERNEL_KEEP } from "../../../src/learning/attach/pending-refinements.js";
import { HarnessStore, scopeLocation } from "../../../src/learning/store/index.js";
import type { ScriptContext, ScriptStep } from "../../../src/scripted/index.js";
import { runRelm } from "../../support/cli.js";
import { edits, eventNumbers, isRefine, quoteOf, sessionIds, systemOf } from "../../support/harness.js";
import { byTask } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";

const startRig = useRigs();

function scripted(
  agents: Parameters<typeof byTask>[0],
  refine: (ctx: ScriptContext) => ScriptStep = () => edits([]),
) {
  const main = byTask(agents);
  return async (ctx: ScriptContext) => (isRefine(ctx) ? refine(ctx) : main(ctx));
}

const echo = (ctx: { lastToolResult?: string }) => ({ text: ctx.lastToolResult?.trim() ?? "" });
const project = (rig: Rig) => new HarnessStore(scopeLocation("project", { cwd: rig.cwd, home: rig.home }));

/** Request bodies of agent turns (not refinements), in order. */
const turns = (rig: Rig) => rig.model.requests.filter((r) => !isRefine(r));

/** The refiner's answer: one memory, citing the cell that printed "x is 20". */
function keptLesson(ctx: ScriptContext): ScriptStep {
  const [shown] = eventNumbers(ctx, "cell:");
  return edits([
    {
      op: "add",
      kind: "memory",
      content: "KEPT-LESSON: x is 20.",
      evidence: [shown],
      quote: quoteOf(ctx, shown),
      hypothesis: "x is not misread again",
    },
  ]);
}
describe("harness entries in the next session's prompt", () => {
  it("a project-scope memory is in the next session's prompt; a session-scope one is not", async () => {
    const rig = await startRig("anthropic", {
      script: scripted({ "ROOT: first": [{ text: "one" }], "ROOT: second": [{ text: "two" }] }),
    });
    expect((await runRelm(["run", "ROOT: first"], { env: rig.env, cwd: rig.cwd })).code).toBe(0);
    const [first] = sessionIds(rig.home);
    const env = { env: rig.env, cwd: rig.cwd };
    const p = await runRelm(["harness", "add", "memory", "PROJECT-LESSON: builds need make -j2"], env);
    const s = await runRelm(
      [
        "harness",
        "add",
        "memory",
        "SESSION-LESSON: only for this session",
        "--scope",
        "session",
        "--session",
        first as string,
      ],
      env,
    );
    expect(p.code, p.stderr).toBe(0);
    expect(s.code, s.stderr).toBe(0);
    expect(existsSync(join(rig.home, "sessions", first as string, "harness", "revisions.jsonl"))).toBe(true);

    expect((await runRelm(["run", "ROOT: second"], env)).code).toBe(0);
    const system = systemOf(turns(rig).at(-1)?.body);
    expect(system).toContain("# Harness");
    expect(system).toMatch(/- \[mem-[0-9a-z]{6}\] PROJECT-LESSON: builds need make -j2/);
    expect(system).not.toContain("SESSION-LESSON");
    // The block follows the base prompt and comes before the environment facts.
    expect(system.indexOf("# Harness")).toBeGreaterThan(system.indexOf("# Finishing"));
    expect(system.indexOf("# Harness")).toBeLessThan(system.indexOf("# Environment"));
  });
});

describe("skills saved from a cell", () => {
  it("are importable in a new session's kernel and listed in its prompt; a failing smoke test saves nothing", async () => {
    const save = [
      "code = 'def double(x):\\n    return 2 * x\\n'",
      'r = harness.save_skill("doubler", "Doubles a number", code, scope="project", test="assert doubler.double(2) == 4")',
      "import doubler",
      "print(r['scope'], doubler.double(21))",
      "try:",
      '    harness.save_skill("broken", "Never saved", "raise ImportError(\'nope\')", scope="project")',
      "except ValueError as e:",
      "    print('refused:', str(e).splitlines()[0])",
    ].join("\n");
    const rig = await startRig("openai", {
      script: scripted({
        "ROOT: make a skill": [{ code: save }, echo],
        "ROOT: use the skill": [{ code: "import doubler\nprint(doubler.double(5))" }, echo],
      }),
    });
    const env = { env: rig.env, cwd: rig.cwd };
    const made = await runRelm(["run", "ROOT: make a skill"], env);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain("project 42");
    expect(made.stdout).toContain(
      "refused: skill 'broken' failed its smoke test (import broken); nothing was saved",
    );
    expect(existsSync(join(rig.cwd, ".relm", "skills", "doubler", "SKILL.md"))).toBe(true);
    expect(existsSync(join(rig.cwd, ".relm", "skills", "broken"))).toBe(false);

    const used = await runRelm(["run", "ROOT: use the skill"], env);
    expect(used.code, used.stderr).toBe(0);
    expect(used.stdout.trim()).toBe("10");
    const system = systemOf(turns(rig).at(-1)?.body);
    expect(system).toContain("- doubler: Doubles a number (import doubler)");

    // Imported in both sessions: counted, so not stale; the unused memory is.
    await runRelm(["harness", "add", "memory", "An unused lesson."], env);
    const skill = project(rig)
      .entries()
      .find((e) => e.kind === "skill");
    expect(skill).toMatchObject({ title: "doubler", uses: 2, source: "user" });
    const stale = await runRelm(["harness", "log", "--stale"], env);
    expect(stale.stdout).toContain("An unused lesson.");
    expect(stale.stdout).not.toContain("doubler");
  });
});

describe("refining mid-session", () => {
  it("keeps every request of the session a byte extension of the previous one; the next session gets the lesson", async () => {
    const rig = await startRig("openai", {
      script: scripted(
        {
          "ROOT: learn something": [
            { code: "x = 20\nprint(x)" },
            {
              code: "r = harness.refine(scope='project', apply=True)\nprint(r)\nprint(len(harness.entries()))",
            },
            { code: "print(x + 1)" },
            { text: "done" },
          ],
          "ROOT: next session": [{ text: "ok" }],
        },
        (ctx) => {
          const [cell] = eventNumbers(ctx, "cell:");
          return edits([
            {
              op: "add",
              kind: "memory",
              content: "MID-SESSION-LESSON: x starts at 20.",
              evidence: [cell],
              quote: quoteOf(ctx, cell),
              hypothesis: "x is not misread again",
            },
          ]);
        },
      ),
    });
    const env = { env: rig.env, cwd: rig.cwd };
    const run = await runRelm(["run", "ROOT: learn something"], env);
    expect(run.code, run.stderr).toBe(0);
    const bodies = turns(rig).map((r) => r.rawBody);
    expect(bodies).toHaveLength(4);
    expect(bodies[2]).toContain("1 edit(s) applied as r");
    for (let i = 1; i < bodies.length; i++) {
      const previous = bodies[i - 1] as string;
      expect((bodies[i] as string).startsWith(previous.slice(0, previous.lastIndexOf("]")))).toBe(true);
    }
    // The lesson is on disk, and this session's prompt stayed as it was.
    expect(
      project(rig)
        .entries()
        .map((e) => e.content),
    ).toEqual(["MID-SESSION-LESSON: x starts at 20."]);
    for (const b of bodies) expect(systemOf(JSON.parse(b))).not.toContain("MID-SESSION-LESSON");

    expect((await runRelm(["run", "ROOT: next session"], env)).code).toBe(0);
    expect(systemOf(turns(rig).at(-1)?.body)).toContain("MID-SESSION-LESSON: x starts at 20.");
  });

  it("harness.refine() writes nothing until .apply(), and a refinement applies once", async () => {
    const cell = [
      "import relm.harness",
      "r = harness.refine(scope='project')",
      "print('before', len(harness.entries()))",
      "print('applied', r.apply()['revision'] is not None, len(harness.entries()))",
      "try:",
      "    relm.harness._call('harness.apply', {'id': r.id})",
      "except LookupError as e:",
      "    print('again', e)",
    ].join("\n");
    const rig = await startRig("openai", {
      script: scripted(
        { "ROOT: refine then apply": [{ code: "print('x is 20')" }, { code: cell }, echo] },
        keptLesson,
      ),
    });
    const run = await runRelm(["run", "ROOT: refine then apply"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("before 0");
    expect(run.stdout).toContain("applied True 1");
    expect(run.stdout).toMatch(/again no refinement \w+ waiting to be applied \(each applies once\)/);
    expect(
      project(rig)
        .entries()
        .map((e) => e.content),
    ).toEqual(["KEPT-LESSON: x is 20."]);
  });

  it("keeps the newest refinements not yet applied; .apply() of one forgotten behind them says so", async () => {
    const cell = [
      `made = [harness.refine(scope='project') for _ in range(${KERNEL_KEEP.count + 1})]`,
      "try:",
      "    made[0].apply()",
      "except LookupError as e:",
      "    print('oldest:', e)",
      "print('newest applied', made[-1].apply()['revision'] is not None, len(harness.entries()))",
    ].join("\n");
    const rig = await startRig("openai", {
      script: scripted(
        { "ROOT: refine often": [{ code: "print('x is 20')" }, { code: cell }, echo] },
        keptLesson,
      ),
    });
    const run = await runRelm(["run", "ROOT: refine often"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `oldest: refinement \\w+ was forgotten: only the ${KERNEL_KEEP.count} newest refinements not yet applied are kept`,
      ),
    );
    expect(run.stdout).toContain("newest applied True 1");
  });

  it("harness.refine() fits its answer in config.json's contextWindows, as the front end's refine does", async () => {
    // The configured window is small beside the default (32 768) the refine was capped in before: the
    // answer's cap is the room left beside the refine prompt in the configured one.
    const window = 12_000;
    const rig = await startRig(
      "openai",
      {
        script: scripted(
          {
            "ROOT: refine in a small window": [
              { code: "print('x is 20')" },
              { code: "r = harness.refine()" },
              echo,
            ],
          },
          () => edits([]),
        ),
      },
      { config: { contextWindows: { scripted: window } } },
    );
    // A token budget: only then is a request's answer capped to fit its window (request-budget.ts).
    const args = ["run", "--max-tokens", "1000000", "ROOT: refine in a small window"];
    const run = await runRelm(args, { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    const asked = rig.model.requests.filter((r) => r.rawBody.includes("Propose harness edits for session"));
    expect(asked).toHaveLength(1);
    const body = JSON.parse(asked[0]?.rawBody as string) as { max_tokens?: number };
    const prompt = Math.ceil((asked[0]?.rawBody.length ?? 0) / 4);
    expect(body.max_tokens).toBeGreaterThan(0);
    // The room beside the prompt (as relm estimates it, ~4 characters a token) in the configured window.
    expect(body.max_tokens).toBeLessThan(window - prompt / 2);
    expect(body.max_tokens).toBeGreaterThan(window - prompt * 2);
  });

  it("/refine in the interactive session shows the diff and applies only after y; proposals reach the refine model", async () => {
    const seen: string[] = [];
    const rig = await startRig("openai", {
      script: scripted(
        {
          "ROOT: interactive work": [
            {
              code: 'harness.propose("PROPOSED: the API needs a trailing slash", kind="memory")\nprint("ok")',
            },
            { text: "done" },
            { text: "second answer" },
          ],
        },
        (ctx) => {
          seen.push(ctx.lastUserText ?? "");
          const [cell] = eventNumbers(ctx, "cell:");
          return edits([
            {
              op: "add",
              kind: "memory",
              content: `Lesson ${seen.length}: the API needs a trailing slash.`,
              evidence: [cell],
              quote: quoteOf(ctx, cell),
              hypothesis: "no more 404s from a missing slash",
            },
          ]);
        },
      ),
    });
    const input = "ROOT: interactive work\n/refine project\nn\n/refine project\ny\nand then?\n/exit\n";
    const result = await runRelm([], { env: rig.env, cwd: rig.cwd, input });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("+ add memory");
    expect(result.stdout).toContain("Apply 1 edit(s) to the project scope? [y/N]");
    expect(result.stdout).toContain("not applied");
    expect(result.stdout).toMatch(/applied as revision r[0-9a-z]{7} in the project scope/);
    expect(seen[0]).toContain("PROPOSED: the API needs a trailing slash");
    expect(
      project(rig)
        .entries()
        .map((e) => e.content),
    ).toEqual(["Lesson 2: the API needs a trailing slash."]);
    // The agent reads it before its next request: a note after the message, the prefix kept.
    expect(result.stdout).toContain(
      "the running agents of this session (1) read it before their next model request",
    );
    const [previous, next] = turns(rig).slice(-2);
    const messages = (r: typeof next) =>
      ((r?.body ?? {}) as { messages: { role: string; content: unknown }[] }).messages;
    expect(messages(next).slice(0, messages(previous).length)).toEqual(messages(previous));
    const added = messages(next)
      .slice(messages(previous).length)
      .map((m) => JSON.stringify(m.content));
    expect(added).toHaveLength(3);
    expect(added[1]).toContain("and then?");
    expect(added[2]).toMatch(/\[relm: lesson learned from event \d+;/); // one event cited: "event", not "events"
    expect(added[2]).toContain("Lesson 2: the API needs a trailing slash.");
    expect(systemOf(next?.body)).not.toContain("Lesson 2");
  });
});

describe("sub-agent specs kept in the harness", () => {
  it("start a child with the entry's instructions, and count as used", async () => {
    const rig = await startRig("openai", {
      script: scripted({
        "ROOT: delegate": [{ code: 'print(rlm("CHILD: review the diff", spec="reviewer"))' }, echo],
        "CHILD: review the diff": [{ text: "no problems" }],
      }),
    });
    const env = { env: rig.env, cwd: rig.cwd };
    const added = await runRelm(
      [
        "harness",
        "add",
        "agent",
        "Reviews diffs strictly.\nReport each problem with file and line.",
        "--title",
        "reviewer",
      ],
      env,
    );
    expect(added.code, added.stderr).toBe(0);
    const run = await runRelm(["run", "ROOT: delegate"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("no problems");
    const root = systemOf(turns(rig)[0]?.body);
    expect(root).toContain("## Sub-agent specs");
    expect(root).toContain("- reviewer: Reviews diffs strictly.");
    const child = turns(rig).find(
      (r) => r.rawBody.includes("CHILD: review the diff") && !r.rawBody.includes("ROOT"),
    );
    expect(systemOf(child?.body)).toContain(
      '# Instructions for this sub-agent (spec "reviewer")\nReviews diffs strictly.',
    );
    expect(project(rig).entries()[0]?.uses).toBe(1);
  });
});

describe("harness.refine() that the session's budget refuses", () => {
  it("says why in the Refinement the code gets, instead of 'no edits'", async () => {
    const rig = await startRig(
      "openai",
      {
        script: scripted({
          "ROOT: refine under a cost limit": [
            { code: "r = harness.refine(model='unpriced-refiner')\nprint(r.error)\nprint(r)" },
            echo,
          ],
        }),
      },
      { config: { prices: { scripted: { input: 1, output: 1 } } } },
    );
    const run = await runRelm(["run", "--max-cost", "1", "ROOT: refine under a cost limit"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^not run: .*--max-cost.*the price of "unpriced-refiner" is unknown/m);
    expect(run.stdout).not.toContain("no edits");
    // The refinement was not sent.
    expect(rig.model.requests.filter((r) => isRefine(r))).toEqual([]);
  });
});
