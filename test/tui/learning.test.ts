// Learning in the terminal UI (issue 21, item 5): a pass that applies a lesson is one line in the
// transcript, and the status line counts what the session learned ("learned 1").
import { describe, expect, it } from "vitest";
import type { ScriptContext, ScriptStep } from "../../src/scripted/index.js";
import { runRelm } from "../support/cli.js";
import { edits, eventNumbers, isRefine, lessonOnce, quoteOf } from "../support/harness.js";
import { untilJournal, useTui } from "../support/tui.js";

const { startRig, open } = useTui();
const LESSON = "TUI-LESSON: the gate wants fixed.txt in the project root.";

/** "Done" twice without a fix (two identical gate failures), then the fix once the lesson is there. */
function script() {
  const steps: ScriptStep[] = [
    { text: "Done, I think." },
    { text: "Done now." },
    { code: "open('fixed.txt', 'w').write('ok')\nprint('fixed')" },
    { text: "Fixed." },
  ];
  let asked = 0;
  let step = 0;
  return (ctx: ScriptContext): ScriptStep => {
    if (!isRefine(ctx)) return steps[step++] ?? { text: "nothing left" };
    const gates = eventNumbers(ctx, "gates failed");
    if (asked++ > 0 || gates.length < 2) return edits([]);
    return edits([
      {
        op: "add",
        kind: "memory",
        content: LESSON,
        evidence: gates,
        quote: quoteOf(ctx, gates[0]),
        hypothesis: "the gate passes",
      },
    ]);
  };
}

describe("terminal UI learning", () => {
  it("shows the pass that learned a lesson in the transcript and 'learned 1' in the status line", async () => {
    const rig = await startRig("openai", { script: script() });
    const ui = open(rig, [], { cols: 160 });
    await ui.waitFor("new session");
    await ui.type("/learn on");
    await ui.press("enter");
    await ui.waitFor("learning: on");
    await ui.type('/autonomous on "test -f fixed.txt"');
    await ui.press("enter");
    await ui.waitFor("autonomous (1 gate)");
    await ui.type("make the gate pass");
    await ui.press("enter");
    const lines = await untilJournal(rig.home, (l) =>
      l.some((e) => e.type === "learn" && e.outcome === "applied"),
    );
    const pass = lines.find((e) => e.type === "learn") as unknown as { revision: string };
    const screen = await ui.waitFor(/│ learned 1 │/);
    expect(screen).toContain(`✎ learned 1 lesson from events`);
    expect(screen).toContain(`(gate failure, revision ${pass.revision}): ${LESSON}`);
    await untilJournal(rig.home, (l) => l.some((e) => e.type === "autonomy_end"));
    await ui.press("escape");
  });
});

/** The learner's three cells and its one lesson, then any other task: one cell and an answer. */
function probationScript() {
  const lesson = lessonOnce(LESSON, "the gate passes");
  return (ctx: ScriptContext): ScriptStep => {
    if (isRefine(ctx)) return lesson(ctx);
    const messages = (ctx.body as { messages: { role: string }[] }).messages;
    const done = messages.filter((m) => m.role === "tool").length;
    if (ctx.rawBody.includes("LEARN: count"))
      return done < 3 ? { code: `print(${done + 1})` } : { text: "counted" };
    return done < 1 ? { code: "print('hello')" } : { text: "said hello" };
  };
}

describe("terminal UI probation", () => {
  it("a new session in the project says it starts with the lesson on probation, and the status line counts it", async () => {
    const rig = await startRig(
      "openai",
      { script: probationScript() },
      { config: { learn: { every_turns: 2, at_compaction: false } } },
    );
    const learnt = await runRelm(["run", "--learn", "LEARN: count"], { env: rig.env, cwd: rig.cwd });
    expect(learnt.code, learnt.stderr).toBe(0);
    const ui = open(rig, [], { cols: 160 });
    await ui.waitFor("new session");
    await ui.type("say hello");
    await ui.press("enter");
    const screen = await ui.waitFor(/│ on probation 1 │/);
    expect(screen).toContain(
      "✎ starting with 1 lesson on probation from earlier sessions — relm harness list --scope probation",
    );
    await ui.waitFor("said hello");
    await ui.press("escape");
  });
});
