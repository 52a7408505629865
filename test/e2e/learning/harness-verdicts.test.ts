// Edits that must earn their place (docs/harness.md, "Verdicts" and "Verify before promotion"): the
// scripted model over HTTP, real kernels, real gates; the refine model's answers scripted too.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/core/events.js";
import { prepareSession } from "../../../src/cli/setup.js";
import { SessionClient } from "../../../src/host/client.js";
import { SessionHost } from "../../../src/host/host.js";
import type { SessionInfo } from "../../../src/host/info.js";
import {
  HarnessStore,
  type Revision,
  scopeLocation,
  VerdictLog,
  type VerdictLogRecord,
} from "../../../src/learning/store/index.js";
import type { ScriptContext, ScriptStep } from "../../../src/scripted/index.js";
import { runRelm } from "../../support/cli.js";
import { edits, eventNumbers, isRefine, quoteOf, sessionIds, systemOf } from "../../support/harness.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();
const GATE = "grep -q good out.txt";
/**
 * A port on 127.0.0.1 nothing listens on: the discard port, below the range the system hands out to
 * listen(0). A port that was free a moment ago could be handed to another test's scripted model, running
 * in parallel, before this test's replay dials it.
 */
const DEAD_PORT = 9;

const isSummary = (ctx: ScriptContext) => ctx.rawBody.includes("You summarise the earlier part");

/**
 * The agent: writes `content(system)` to out.txt, then says so. Refine and compaction requests go to
 * `refine` and a fixed summary.
 */
function script(
  content: (system: string) => string,
  refine: (ctx: ScriptContext) => ScriptStep = () => edits([]),
): (ctx: ScriptContext) => ScriptStep {
  return (ctx) => {
    if (isRefine(ctx)) return refine(ctx);
    if (isSummary(ctx)) return { text: "## Goal\nFix the build.\n## Progress so far\nSome tries." };
    const messages = (ctx.body as { messages: { role: string }[] }).messages;
    if (messages.at(-1)?.role === "tool") return { text: "written" };
    return { code: `open('out.txt', 'w').write(${JSON.stringify(content(systemOf(ctx.body)))})` };
  };
}

/** Without the lesson it takes three tries to get out.txt right; with it, one. */
function slowWithoutLesson(lesson: string) {
  let tries = 0;
  return (system: string) => {
    if (system.includes(lesson)) return "good";
    tries += 1;
    return tries % 3 === 0 ? "good" : `wrong-${tries}`;
  };
}

/** The refine model's answer: the lesson, citing the first cell it was shown. */
function lessonAnswer(lesson: string, extra: unknown[] = []) {
  return (ctx: ScriptContext) => {
    const [cell] = eventNumbers(ctx, "cell:");
    return edits([
      {
        op: "add",
        kind: "memory",
        content: lesson,
        evidence: [cell],
        quote: quoteOf(ctx, cell),
        reason: "three tries each time",
        hypothesis: "the build gate passes at the first try",
      },
      ...extra.map((e) => ({ ...(e as object), evidence: [cell], quote: quoteOf(ctx, cell) })),
    ]);
  };
}

/** Every file under `dir` with its bytes' hash: the user's working tree, to prove nothing touched it. */
function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const st = statSync(path);
      if (st.isDirectory()) walk(path);
      else
        out[path] =
          `${st.mode} ${st.mtimeMs} ${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
    }
  };
  walk(dir);
  return out;
}

function journalOf(home: string, id: string): { type: string; [k: string]: unknown }[] {
  return readFileSync(join(home, "sessions", id, "journal.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/** Runs one `relm run` and returns its session id. */
async function run(rig: Rig, args: string[], code: number): Promise<{ id: string; stderr: string }> {
  const before = new Set(sessionIds(rig.home));
  const result = await runRelm(["run", ...args], { env: rig.env, cwd: rig.cwd });
  expect(result.code, result.stderr).toBe(code);
  const id = sessionIds(rig.home).find((s) => !before.has(s)) as string;
  return { id, stderr: result.stderr };
}

const projectStore = (rig: Rig) =>
  new HarnessStore(scopeLocation("project", { cwd: rig.cwd, home: rig.home }));

describe("verdicts", () => {
  it("an edit after which the gate starts failing is reverted automatically, by a revision naming the gate runs", async () => {
    const LESSON = "REPORT-LESSON: the report must say bad.";
    const rig = await startRig("openai", {
      script: script((system) => (system.includes(LESSON) ? "bad" : "good")),
    });
    const gated = ["--gate", GATE, "--max-gate-failures", "2", "TASK: write the report"];
    const s1 = await run(rig, gated, 0);
    const s2 = await run(rig, gated, 0);
    const added = await runRelm(
      ["harness", "add", "memory", LESSON, "--hypothesis", "the report gate passes sooner"],
      { env: rig.env, cwd: rig.cwd },
    );
    expect(added.code, added.stderr).toBe(0);
    const [edit] = projectStore(rig).revisions() as [Revision];
    expect(edit.edits[0]?.hypothesis).toBe("the report gate passes sooner");

    const s3 = await run(rig, gated, 4);
    expect(projectStore(rig).revisions()).toHaveLength(1); // one attempt after it: not enough to judge
    const s4 = await run(rig, gated, 4);

    const revisions = projectStore(rig).revisions();
    expect(revisions).toHaveLength(2);
    const undo = revisions[1] as Revision;
    expect(undo).toMatchObject({
      revert: edit.rev,
      author: "verdict",
      verdict: { rev: edit.rev, verdict: "regressed" },
    });
    const runs = (id: string) =>
      journalOf(rig.home, id)
        .filter((e) => e.type === "gate_run")
        .map((e) => `#${e.n} ${e.passed ? "pass" : "fail"}`)
        .join(" ");
    expect(runs(s1.id)).toMatch(/^#\d+ pass$/);
    expect(runs(s3.id)).toMatch(/^#\d+ fail #\d+ fail$/);
    expect(undo.reason).toContain(`automatic revert of ${edit.rev}: regressed`);
    expect(undo.reason).toContain("green 2/2 → 0/2");
    expect(undo.reason).toContain(
      `gate runs before: ${s1.id} ${runs(s1.id)}; ${s2.id} ${runs(s2.id)}; after: ${s3.id} ${runs(s3.id)}; ${s4.id} ${runs(s4.id)}`,
    );
    expect(projectStore(rig).state().size).toBe(0);
    // The session that found it says so, in its journal and on the terminal.
    expect(journalOf(rig.home, s4.id).find((e) => e.type === "harness_verdict")).toMatchObject({
      scope: "project",
      rev: edit.rev,
      verdict: "regressed",
      reverted: undo.rev,
    });
    expect(s4.stderr).toContain(`⚖ harness edit ${edit.rev} (project) regressed — reverted as ${undo.rev}`);

    // With the lesson gone the gate passes again, and stats tells the story without writing twice.
    await run(rig, gated, 0);
    const stats = await runRelm(["harness", "stats"], { env: rig.env, cwd: rig.cwd });
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toContain(`${edit.rev} (project) regressed`);
    expect(stats.stdout).toContain(`reverted as ${undo.rev}`);
    expect(stats.stdout).toContain("hypothesis: the report gate passes sooner");
    const log = new VerdictLog(projectStore(rig).location, rig.home).records();
    expect(log.map((r) => [r.type, r.rev])).toEqual([["verdict", edit.rev]]);
    expect(projectStore(rig).revisions()).toHaveLength(2);
  }, 240_000);

  it("an edit after which turns to green drop is marked improved; promotion waits for a passing verify, then carries the evidence", async () => {
    const LESSON = "BUILD-LESSON: out.txt must say good.";
    const rig = await startRig("openai", {
      script: script(slowWithoutLesson(LESSON), lessonAnswer(LESSON)),
    });
    const h = await hosted(rig);
    await h.turn("TASK: fix the build (1)");
    await h.turn("TASK: fix the build (2)");
    const proposed = await h.client.call("refine", { scope: "session" });
    expect(proposed.accepted).toBe(1);
    await h.client.call("refine.apply", { token: proposed.token });
    const session = new HarnessStore(
      scopeLocation("session", { cwd: rig.cwd, home: rig.home, sessionDir: h.dir }),
    );
    const [edit] = session.revisions() as [Revision];
    const entry = edit.edits[0]?.id as string;
    expect(edit.edits[0]?.hypothesis).toBe("the build gate passes at the first try");
    await h.client.call("compact", {});
    await h.turn("TASK: fix the build (3)");
    await h.turn("TASK: fix the build (4)");
    await h.close();

    const events = journalOf(rig.home, h.id);
    const verdict = events.find((e) => e.type === "harness_verdict");
    expect(verdict).toMatchObject({ scope: "session", rev: edit.rev, verdict: "improved" });
    expect(verdict?.summary).toContain("turns to green 6.0 → 2.0");
    const env = { env: rig.env, cwd: rig.cwd };

    // Learnt in an autonomous run: promotion needs a passing replay first.
    const refused = await runRelm(["harness", "promote", entry, "--session", h.id], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`needs a passing replay check first: relm harness verify ${edit.rev}`);
    expect(projectStore(rig).revisions()).toEqual([]);

    const tree = hashTree(rig.cwd);
    const verified = await runRelm(["harness", "verify", edit.rev, "--session", h.id], env);
    expect(verified.code, verified.stderr + verified.stdout).toBe(0);
    expect(hashTree(rig.cwd)).toEqual(tree);
    expect(verified.stdout).toMatch(/turns\s+12\s+4\s+-8/);
    expect(verified.stdout).toContain(`verify passed: with ${edit.rev} gates passed in 4 turns`);

    const promoted = await runRelm(
      ["harness", "promote", entry.slice(0, 7), "--session", h.id.slice(0, 5)],
      env,
    );
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stdout).toContain(`promoted ${entry} to the project scope`);
    const [written] = projectStore(rig).revisions() as [Revision];
    expect(written.edits[0]).toMatchObject({
      op: "add",
      id: entry,
      hypothesis: "the build gate passes at the first try",
    });
    expect(written.verdict).toMatchObject({ rev: edit.rev, session: h.id, verdict: "improved" });
    expect(written.verdict?.evidence).toContain("turns to green 6.0 → 2.0");
    expect(written.verdict?.verify?.summary).toContain("verify passed");
    const kinds = new VerdictLog(session.location, rig.home).records().map((r: VerdictLogRecord) => r.type);
    expect(kinds).toEqual(["verdict", "verify", "promotion"]);

    const stats = await runRelm(["harness", "stats", "--session", h.id, "--scope", "session", "--json"], env);
    expect(stats.code, stats.stderr).toBe(0);
    const [row] = stats.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(row).toMatchObject({
      type: "entry",
      id: entry,
      hypothesis: "the build gate passes at the first try",
      outcomes: { attempts: 2, green: 2, turnsToGreen: 2, sessions: 1 },
      verdict: { verdict: "improved" },
    });
    const table = await runRelm(["harness", "stats", "--session", h.id, "--scope", "session"], env);
    expect(table.stdout).toMatch(
      new RegExp(`${entry}\\s+session\\s+memory\\s+\\d+\\s+1 session\\(s\\)\\s+2/2\\s+2.0\\s+–\\s+improved`),
    );
  }, 240_000);
});

describe("relm harness verify", () => {
  it("replays the recorded task without and with the edit in scratch copies of the starting files, reports both, and leaves the working tree alone", async () => {
    const LESSON = "COPY-LESSON: out.txt must say good.";
    const rig = await startRig("openai", {
      script: script(
        slowWithoutLesson(LESSON),
        lessonAnswer(LESSON, [{ op: "add", kind: "memory", content: "An unfounded lesson." }]),
      ),
    });
    writeFileSync(join(rig.cwd, "input.txt"), "42\n");
    const { id } = await run(rig, ["--gate", GATE, "TASK: fix the build"], 0);
    const env = { env: rig.env, cwd: rig.cwd };
    const refined = await runRelm(["refine", id, "--apply", "--scope", "project"], env);
    expect(refined.code, refined.stderr).toBe(0);
    expect(refined.stdout).toContain(
      'rejected edit 2: states no hypothesis: say what the edit should change ("hypothesis")',
    );
    expect(refined.stdout).toContain("hypothesis: the build gate passes at the first try");
    const [edit] = projectStore(rig).revisions() as [Revision];
    expect(edit.edits).toHaveLength(1);

    // The files move on after the session: the replay still starts from where the session started.
    writeFileSync(join(rig.cwd, "notes.txt"), "written later\n");
    const tree = hashTree(rig.cwd);
    const verified = await runRelm(["harness", "verify", edit.rev.slice(0, 5), "--keep"], env);
    expect(verified.code, verified.stderr + verified.stdout).toBe(0);
    expect(hashTree(rig.cwd)).toEqual(tree);
    expect(verified.stdout).toContain(`replayed 1 task(s) of session ${id} from checkpoint`);
    expect(verified.stdout).toMatch(new RegExp(`\\s+without ${edit.rev}\\s+with ${edit.rev}\\s+change`));
    expect(verified.stdout).toMatch(/gates\s+passed\s+passed/);
    expect(verified.stdout).toMatch(/turns\s+6\s+2\s+-4/);
    expect(verified.stdout).toContain(`verify passed: with ${edit.rev} gates passed in 2 turns`);
    const kept = /kept in (\S+)/.exec(verified.stderr)?.[1] as string;
    try {
      for (const variant of ["without", "with"]) {
        const work = join(kept, variant, "work");
        expect(readFileSync(join(work, "input.txt"), "utf8")).toBe("42\n");
        expect(existsSync(join(work, "notes.txt"))).toBe(false);
        expect(readFileSync(join(work, "out.txt"), "utf8")).toBe("good");
      }
    } finally {
      rmSync(kept, { recursive: true, force: true });
    }
    const record = new VerdictLog(projectStore(rig).location, rig.home).latest(edit.rev, "verify");
    expect(record).toMatchObject({
      passed: true,
      session: id,
      model: "scripted",
      tasks: ["TASK: fix the build"],
      gates: [GATE],
      workspace: { source: "checkpoint" },
      with: { gatesPassed: true, turns: 2 },
      without: { gatesPassed: true, turns: 6 },
    });

    const shown = await runRelm(["harness", "show", edit.rev], env);
    expect(shown.stdout).toContain("hypothesis: the build gate passes at the first try");
  }, 240_000);
});

describe("relm harness verify without the session's checkpoint", () => {
  it("replays in copies of the folder as it is now, the user's .git left out, the folder itself untouched", async () => {
    const LESSON = "COPY-LESSON: out.txt must say good.";
    const rig = await startRig("openai", {
      script: script(slowWithoutLesson(LESSON), lessonAnswer(LESSON)),
    });
    writeFileSync(join(rig.cwd, "input.txt"), "42\n");
    const { id } = await run(rig, ["--gate", GATE, "TASK: fix the build"], 0);
    const env = { env: rig.env, cwd: rig.cwd };
    expect((await runRelm(["refine", id, "--apply", "--scope", "project"], env)).code).toBe(0);
    const [edit] = projectStore(rig).revisions() as [Revision];
    // The checkpoints removed (a cleaned-up RELM_HOME); the folder became a git repository meanwhile.
    rmSync(join(rig.home, "checkpoints"), { recursive: true, force: true });
    execFileSync("git", ["init", "-q"], { cwd: rig.cwd });
    writeFileSync(join(rig.cwd, "notes.txt"), "written later\n");
    const tree = hashTree(rig.cwd);
    const verified = await runRelm(["harness", "verify", edit.rev.slice(0, 5), "--keep"], env);
    expect(verified.stdout, verified.stderr).toContain(
      `replayed 1 task(s) of session ${id} from a copy of its folder`,
    );
    expect(hashTree(rig.cwd)).toEqual(tree);
    const kept = /kept in (\S+)/.exec(verified.stderr)?.[1] as string;
    try {
      for (const variant of ["without", "with"]) {
        const work = join(kept, variant, "work");
        expect(readFileSync(join(work, "notes.txt"), "utf8")).toBe("written later\n");
        expect(readFileSync(join(work, "input.txt"), "utf8")).toBe("42\n");
        expect(existsSync(join(work, ".git"))).toBe(false);
      }
    } finally {
      rmSync(kept, { recursive: true, force: true });
    }
    const record = new VerdictLog(projectStore(rig).location, rig.home).latest(edit.rev, "verify");
    expect(record).toMatchObject({ session: id, workspace: { source: "copy" } });
  }, 240_000);
});

describe("relm harness verify when a replay cannot run", () => {
  it("a dead endpoint is recorded as an error (no check), not a failed one; a real failure is still a failure", async () => {
    const LESSON = "WORSE-LESSON: out.txt must say bad.";
    const rig = await startRig("openai", {
      script: script((system) => (system.includes(LESSON) ? "bad" : "good"), lessonAnswer(LESSON)),
    });
    const { id } = await run(rig, ["--gate", GATE, "TASK: write the report"], 0);
    const env = { env: rig.env, cwd: rig.cwd };
    const refined = await runRelm(["refine", id, "--apply", "--scope", "project"], env);
    expect(refined.code, refined.stderr + refined.stdout).toBe(0);
    const [edit] = projectStore(rig).revisions() as [Revision];
    const log = () => new VerdictLog(projectStore(rig).location, rig.home);

    const before = rig.model.requests.length;
    const unreachable = await runRelm(["harness", "verify", edit.rev], {
      cwd: rig.cwd,
      env: { ...rig.env, RELM_BASE_URL: `http://127.0.0.1:${DEAD_PORT}/v1` },
    });
    expect(unreachable.code, `${unreachable.stderr}\n${unreachable.stdout}`).toBe(1);
    expect(unreachable.stderr).toMatch(
      new RegExp(
        `^relm: verify of ${edit.rev} could not run \\(the replay without the edit\\): the replay failed before the model's first answer: .+`,
        "m",
      ),
    );
    expect(unreachable.stderr).toContain("Recorded as an error, not as a failed check");
    expect(unreachable.stdout).not.toContain("verify failed");
    expect(rig.model.requests.length).toBe(before); // the "with" replay is not tried
    expect(log().latest(edit.rev, "verify")).toBeUndefined();
    expect(log().latest(edit.rev, "verify_error")).toMatchObject({
      variant: "without",
      session: id,
      model: "scripted",
    });

    // No Python for its kernels: the replay session cannot even start. An error too, never a check.
    const noPython = await runRelm(["harness", "verify", edit.rev], {
      cwd: rig.cwd,
      env: { ...rig.env, RELM_PYTHON: join(rig.cwd, "no-such-python") },
    });
    expect(noPython.code, `${noPython.stderr}\n${noPython.stdout}`).toBe(1);
    expect(noPython.stderr).toMatch(
      new RegExp(
        `^relm: verify of ${edit.rev} could not run \\(the replay without the edit\\): the replay session could not start: .*no-such-python`,
        "m",
      ),
    );
    // The reason's own full stop is not doubled by the sentence after it.
    expect(noPython.stderr).toContain("the interpreter to use. Recorded as an error, not as a failed check");
    expect(rig.model.requests.length).toBe(before);

    // With the endpoint back, the same edit fails its check for real: recorded as a failure.
    const checked = await runRelm(["harness", "verify", edit.rev], env);
    expect(checked.code, checked.stderr).toBe(1);
    expect(checked.stdout).toContain(`verify failed: with ${edit.rev} gates failing`);
    expect(log().latest(edit.rev, "verify")).toMatchObject({ passed: false, without: { gatesPassed: true } });
    expect(
      log()
        .records()
        .map((r) => r.type),
    ).toEqual(["verify_error", "verify_error", "verify"]);
  }, 240_000);
});

interface Hosted {
  client: SessionClient;
  id: string;
  dir: string;
  turn(text: string): Promise<SessionInfo>;
  close(): Promise<void>;
}

/** A session hosted in this process in autonomous mode with the gate, and a client on its socket. */
async function hosted(rig: Rig): Promise<Hosted> {
  let host: SessionHost | undefined;
  const sink = (event: AgentEvent) => host?.onEvent(event);
  const { session } = await prepareSession("verdicts", {}, { env: rig.env, cwd: rig.cwd }, sink);
  host = new SessionHost({
    home: rig.home,
    session,
    title: "verdicts",
    cwd: rig.cwd,
    detached: false,
    autonomy: { gates: [GATE], unattended: true },
  });
  const h = host;
  await h.listen();
  const client = (await SessionClient.connect(rig.home, session.id)) as SessionClient;
  const info = () => client.call("info");
  return {
    client,
    id: session.id,
    dir: session.dir,
    turn: async (text) => {
      await client.call("send", { text });
      return until(async () => ((await info()).busy ? undefined : info()), 60_000);
    },
    close: async () => {
      client.close();
      await h.finish();
    },
  };
}
