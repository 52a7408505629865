// Lessons that take effect at once (issue 21, item 1): a lesson applied mid-session is appended to the
// conversation of every running agent before its next model request, so that request still extends the
// previous one byte for byte; the next compaction moves it into the system prompt and drops the note.
// Scripted model over HTTP, real kernels, real gate commands.
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptContext, ScriptStep } from "../../../src/scripted/index.js";
import { runRelm } from "../../support/cli.js";
import { edits, eventNumbers, isRefine, quoteOf, systemOf } from "../../support/harness.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { byTask, whoAsks } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";

const startRig = useRigs();

const NOTE_HEAD = "[relm: lesson learned";
const MEMORY = "LESSON-GATE-7: config.parse does not exist; the parser is config.fastparse";
const FAILURE = "E   ImportError: cannot import name 'parse' from 'config'";
const GATE = `test -f fixed.txt || { echo "${FAILURE}"; exit 1; }`;
const isSummary = (ctx: Pick<ScriptContext, "rawBody">) =>
  ctx.rawBody.includes("You summarise the earlier part");

interface WireMessage {
  role: string;
  content: unknown;
}
const messagesOf = (body: unknown) => (body as { messages: WireMessage[] }).messages;
const textOf = (m: WireMessage | undefined) =>
  typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? "");
const notesIn = (body: unknown) => messagesOf(body).filter((m) => textOf(m).includes(NOTE_HEAD));
const ofType = (lines: JournalLine[], type: string) => lines.filter((l) => l.type === type);

/** `next`'s messages start with exactly `previous`'s (system prompt included): the prefix is kept. */
function expectPrefixKept(previous: unknown, next: unknown, what: string): void {
  const before = messagesOf(previous);
  expect(messagesOf(next).slice(0, before.length), what).toEqual(before);
  expect(systemOf(next), what).toBe(systemOf(previous));
}

/** The agent: "done" twice without a fix (two identical gate failures), filler that forces a compaction, the fix. */
function agentScript(): (ctx: ScriptContext) => ScriptStep {
  const steps: ScriptStep[] = [
    { code: "print('looking at config', 'z' * 6000)" },
    { text: "Done, I think." },
    { code: "print('trying again')" },
    { text: "Done now." },
    // Big enough that the next boundary compacts (once): the note is then among the turns kept verbatim.
    { code: "print('z' * 8000)" },
    { code: "print('after the compaction')" },
    { code: "open('fixed.txt', 'w').write('ok')\nprint('fixed')" },
    { text: "Fixed: the gate passes." },
  ];
  let step = 0;
  return () => steps[step++] ?? { text: "nothing left to do" };
}

/** The refine model: a memory citing the two failed gate runs, then nothing more. */
function lessonOnce() {
  let asked = 0;
  return (ctx: ScriptContext): ScriptStep => {
    asked++;
    const gates = eventNumbers(ctx, "gates failed");
    if (asked > 1 || gates.length < 2) return edits([]);
    return edits([
      {
        op: "add",
        kind: "memory",
        content: MEMORY,
        evidence: gates,
        quote: quoteOf(ctx, gates[0]),
        reason: "the same ImportError twice",
        hypothesis: "the gate stops failing on ImportError",
      },
    ]);
  };
}

function learnRun(refine: (ctx: ScriptContext) => ScriptStep) {
  const agent = agentScript();
  return async (ctx: ScriptContext): Promise<ScriptStep> => {
    if (isRefine(ctx)) return refine(ctx);
    if (isSummary(ctx))
      return { text: "## Goal\nTASK: fix the import\n## Progress so far\nGate fails on ImportError." };
    return agent(ctx);
  };
}

const agentRequests = (rig: Rig) => rig.model.requests.filter((r) => !isRefine(r) && !isSummary(r));

describe("a lesson takes effect at once, prefix kept", () => {
  it("relm run --learn: the request right after the pass carries the note, extending the previous one; after the compaction it is in the system prompt and the note is gone", async () => {
    const rig = await startRig(
      "openai",
      { script: learnRun(lessonOnce()) },
      { config: { contextWindows: { scripted: 6000 } } },
    );
    const run = await runRelm(
      ["run", "--learn", "--gate", GATE, "--max-gate-failures", "5", "TASK: fix the import"],
      { env: rig.env, cwd: rig.cwd },
    );
    expect(run.code, run.stderr).toBe(0);
    const { lines, dir } = onlyJournal(rig.home);
    const gateRuns = ofType(lines, "gate_run");
    const pass = ofType(lines, "learn")[0];
    expect(pass).toMatchObject({ trigger: "gate_failure", outcome: "applied" });
    // The user sees it on stderr, one line, between the second failed gate and the next step.
    const notice = `✎ learned 1 lesson from events ${gateRuns[0]?.n}–${gateRuns[1]?.n} (gate failure, revision ${pass?.revision}): ${MEMORY} — in force from the next request`;
    expect(run.stderr.split("\n")).toContain(notice);
    expect(run.stderr).toContain("✎ learning pass 2 (compaction): no lesson proposed");

    // The very next request of the agent after the refine request has the note, as its last message.
    const all = rig.model.requests;
    const refineAt = all.findIndex((r) => isRefine(r));
    const next = all.slice(refineAt + 1).find((r) => !isRefine(r) && !isSummary(r));
    const previous = all
      .slice(0, refineAt)
      .filter((r) => !isSummary(r))
      .at(-1);
    expect(next && previous).toBeTruthy();
    expect(notesIn(previous?.body)).toEqual([]);
    const last = messagesOf(next?.body).at(-1);
    expect(last?.role).toBe("user");
    expect(textOf(last)).toContain(
      `${NOTE_HEAD} from events ${gateRuns[0]?.n}–${gateRuns[1]?.n}; it is in the harness (session scope, revision ${pass?.revision})`,
    );
    expect(textOf(last)).toContain(MEMORY);
    expectPrefixKept(previous?.body, next?.body, "the request after the pass");
    expect(systemOf(next?.body)).not.toContain(MEMORY);

    // Journaled as its own event, right before the request that carried it.
    const lesson = ofType(lines, "lesson");
    expect(lesson).toHaveLength(1);
    expect(lesson[0]).toMatchObject({
      revision: pass?.revision,
      scope: "session",
      events: { from: gateRuns[0]?.n, to: gateRuns[1]?.n },
    });
    expect(lesson[0]?.text as string).toContain(MEMORY);

    // Until the compaction: one note, every request extending the last. After it: in the system prompt,
    // no note.
    const requests = agentRequests(rig);
    const summaryAt = all.findIndex((r) => isSummary(r));
    expect(summaryAt).toBeGreaterThan(refineAt);
    const firstAfter = requests.findIndex((r) => all.indexOf(r) > summaryAt);
    const from = requests.indexOf(next as (typeof requests)[number]);
    expect(firstAfter).toBeGreaterThan(from);
    for (let i = from; i < firstAfter; i++) {
      expect(notesIn(requests[i]?.body), `request ${i}`).toHaveLength(1);
      if (i > from) expectPrefixKept(requests[i - 1]?.body, requests[i]?.body, `request ${i}`);
    }
    expect(requests.length).toBeGreaterThan(firstAfter);
    for (let i = firstAfter; i < requests.length; i++) {
      expect(systemOf(requests[i]?.body), `request ${i}`).toContain(MEMORY);
      expect(notesIn(requests[i]?.body), `request ${i}`).toEqual([]);
    }

    // A resume replays the note and the compaction that dropped it: the same conversation, extended.
    const resumed = await runRelm(["run", "--resume", basename(dir), "one more thing"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    // One compaction, whose kept turns held the note: the resume must drop it as the live session did.
    expect(ofType(lines, "compaction")).toHaveLength(1);
    expectPrefixKept(requests.at(-1)?.body, rig.model.requests.at(-1)?.body, "resumed");

    const stats = await runRelm(["harness", "stats", "--session", basename(dir), "--scope", "session"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    // Per lesson: where it came from, where it was in force, what it did, its state.
    expect(stats.code, stats.stderr).toBe(0);
    const id = basename(dir);
    const entry = ((lesson[0]?.entries ?? []) as string[])[0] as string;
    const block = stats.stdout.slice(stats.stdout.indexOf(`  ${entry} (session memory): ${MEMORY}`));
    expect(block).toContain(
      `    from: session ${id}, events ${gateRuns[0]?.n}–${gateRuns[1]?.n}; revision ${pass?.revision} by learn scripted`,
    );
    expect(block).toContain(`    in force in: ${id}\n`);
    expect(block).toMatch(
      / {4}effect: gates green 2\/2, [\d.]+ turns to green; pending \(needs 2 attempts on each side\)/,
    );
    expect(block).toContain("    state: in force, verdict pending");
  });

  it("harness.refine(apply=True) from a cell: the calling agent's next request and a running child's next turn carry the note; a resume rebuilds the same conversation", async () => {
    const LESSON = "CELL-LESSON: the data file is semicolon-separated.";
    const rig = await startRig("openai", {
      script: async (ctx) => {
        if (isRefine(ctx)) {
          const [cell] = eventNumbers(ctx, "cell:");
          return edits([
            {
              op: "add",
              kind: "memory",
              content: LESSON,
              evidence: [cell],
              quote: quoteOf(ctx, cell),
              hypothesis: "the file is parsed right the first time",
            },
          ]);
        }
        return byTask({
          "ROOT: learn now": [
            {
              code: "import os\nchild = rlm.spawn('CHILD: wait for go', go=os.path.abspath('go'))\nprint('spawned')",
            },
            {
              code: "try:\n    r = harness.refine(apply=True)\n    print(len(r.applied['taught']))\nfinally:\n    open(os.path.abspath('go'), 'w').write('1')",
            },
            { code: "print(child.result(timeout=60))" },
            { text: "root done" },
          ],
          "CHILD: wait for go": [
            {
              code: "import os, time\nend = time.time() + 30\nwhile not os.path.exists(go) and time.time() < end:\n    time.sleep(0.02)\nprint('go seen')",
            },
            { text: "child done" },
          ],
        })(ctx);
      },
    });
    const env = { env: rig.env, cwd: rig.cwd };
    const run = await runRelm(["run", "ROOT: learn now"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("root done");

    const of = (task: string) =>
      rig.model.requests.filter((r) => !isRefine(r) && whoAsks(r).task.includes(task));
    const root = of("ROOT: learn now");
    const child = of("CHILD: wait for go");
    expect(root).toHaveLength(4);
    expect(child).toHaveLength(2);
    // Both agents were running: the cell saw two agents taught.
    const cellResult = messagesOf(root[2]?.body).at(-2);
    expect(cellResult?.role).toBe("tool");
    expect(textOf(cellResult).trim()).toMatch(/^"?2\b/);
    // The root: the request after the refining cell ends with the note; the prefix is kept.
    expect(notesIn(root[1]?.body)).toEqual([]);
    expect(textOf(messagesOf(root[2]?.body).at(-1))).toContain(LESSON);
    expect(textOf(messagesOf(root[2]?.body).at(-1))).toContain(NOTE_HEAD);
    expectPrefixKept(root[1]?.body, root[2]?.body, "root");
    expectPrefixKept(root[2]?.body, root[3]?.body, "root after");
    expect(notesIn(root[3]?.body)).toHaveLength(1);
    // The child, already running, reads it at its next turn boundary, marked as a lesson.
    expect(notesIn(child[0]?.body)).toEqual([]);
    expect(textOf(messagesOf(child[1]?.body).at(-1))).toContain(LESSON);
    expectPrefixKept(child[0]?.body, child[1]?.body, "child");
    for (const r of [...root, ...child]) expect(systemOf(r.body)).not.toContain(LESSON);

    // Resumed (the script has no more steps for the root: it answers in words): the first request extends the last one of the run (its note where it was).
    const id = basename(onlyJournal(rig.home).dir);
    const resumed = await runRelm(["run", "--resume", id, "and once more"], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const again = rig.model.requests.at(-1);
    expectPrefixKept(root[3]?.body, again?.body, "resumed");
    expect(notesIn(again?.body)).toHaveLength(1);

    // Never in a system prompt, but read as a note in this session: stats counts it as in force here.
    const stats = await runRelm(["harness", "stats", "--session", id, "--scope", "session", "--json"], env);
    expect(stats.code, stats.stderr).toBe(0);
    const row = JSON.parse(stats.stdout.split("\n")[0] as string);
    expect(row).toMatchObject({
      type: "entry",
      origin: { session: id, events: { from: expect.any(Number) }, author: "refine scripted" },
      sessions: [id],
      state: "in force, verdict pending",
    });
  });
});
