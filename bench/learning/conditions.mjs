// One track: a family's project for one seed under one condition, in its own temp project folder and
// its own RELM_HOME. Instances 1–2 are learnt from, 3–5 held out, each a fresh `relm run` session in
// the SAME project folder (so whatever carries a lesson from one session of a project to the next —
// the project scope, or lessons on probation — applies), then the family's control task.
//
//   none    no learning
//   learn   `relm run --learn` for every session
//   refine  after each learning instance: `relm refine ID --apply` (session scope), `relm harness
//           verify`, `relm harness promote`; when promote refuses, `harness export | import --scope
//           project` (recorded as such), so the held-out sessions can still be measured with the lesson
//   expert  the family's expert-written lesson in the project scope before the first session
//   inject-bad / inject-good   auto-revert precision: instances 1–2 without, then the family's bad (or
//           expert) lesson added to the project scope by hand with a hypothesis, instances 3–5 with it;
//           `relm harness stats` judges, and whether the edit was reverted is read from the log
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lessonInRequest } from "./learner.mjs";
import { INSTANCES, LEARN_FROM, stage, writeGates } from "./project.mjs";
import { benchEnv } from "./selfcheck.mjs";
import { readJournal, relm, runTask, sessionFigures } from "./session.mjs";

export const CONDITIONS = ["none", "learn", "refine", "expert"];
export const INJECT = ["inject-bad", "inject-good"];

/** The last revision of a revisions.jsonl, or undefined. */
function lastRevision(path) {
  try {
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l.trim());
    return JSON.parse(lines.at(-1));
  } catch {
    return undefined;
  }
}
const revisions = (path) => {
  try {
    return readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
};

/**
 * Runs one track. `opts`: {project, condition, root (a temp folder), python, model: {env, name},
 * budget: {turns, gateFailures, time?}, tasks (the scripted learner's registry, or undefined),
 * requests (the scripted server's captured requests, or undefined), log}.
 */
export async function runTrack(opts) {
  const { project, condition, python, log = () => {} } = opts;
  const dir = mkdtempSync(join(opts.root, `${project.family.id}-s${project.seed}-${condition}-`));
  const cwd = join(dir, "project");
  const home = join(dir, "home");
  mkdirSync(join(cwd, ".relm"), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "config.json"), JSON.stringify({ retry: { baseMs: 200, maxMs: 5000 } }));
  const gates = writeGates(project, join(dir, "gates"), python);
  // Full mode (RELM_MODE, so `harness verify`'s replays get it too): the gate scripts live outside the
  // project on purpose (the agent must not read the convention off them), and a sandboxed mode (the
  // default where bubblewrap works) runs gates in a sandbox that does not show them.
  const env = {
    ...benchEnv(opts.env ?? process.env),
    ...opts.model.env,
    RELM_HOME: home,
    RELM_MODE: "full",
    NO_COLOR: "1",
  };
  const say = (line) => log(`${project.family.id} s${project.seed} ${condition}: ${line}`);
  const model = opts.model.name;
  const learner = opts.tasks ? new Map() : undefined;
  opts.tasks?.set(model, learner);
  const budget = [
    "--max-turns",
    String(opts.budget.turns),
    "--max-gate-failures",
    String(opts.budget.gateFailures),
    ...(opts.budget.time ? ["--max-time", opts.budget.time] : []),
  ];
  const lessons = condition === "expert" ? [project.lesson] : [];
  const track = {
    family: project.family.id,
    category: project.family.category,
    seed: project.seed,
    condition,
    dir,
    sessions: [],
    learning: [],
  };

  const add = async (content, hypothesis) => {
    const r = await relm(
      ["harness", "add", "memory", content, "--scope", "project", "--hypothesis", hypothesis],
      { cwd, env },
    );
    if (r.code !== 0) throw new Error(`harness add failed: ${r.stderr}`);
    return lastRevision(join(cwd, ".relm/harness/revisions.jsonl"))?.rev;
  };
  if (condition === "expert") await add(project.lesson, "the gate passes at the first try");
  let injected;

  const tasks = [...project.instances.map((inst, i) => ({ inst, i })), { inst: project.control, i: -1 }];
  for (const { inst, i } of tasks) {
    const role = i < 0 ? "control" : i < LEARN_FROM ? "learn" : "held-out";
    if (condition.startsWith("inject") && i === LEARN_FROM) {
      const text = condition === "inject-bad" ? project.bad : project.lesson;
      injected = { text, rev: await add(text, "the gate passes sooner") };
      lessons.push(text);
    }
    learner?.set(
      inst.task,
      i < 0
        ? { kind: "control", solve: inst.solve(inst) }
        : {
            kind: "trap",
            key: project.key,
            bad: project.bad,
            naive: project.family.naive(inst, project.conv),
            right: project.family.right(inst, project.conv),
          },
    );
    stage(cwd, inst.files);
    const gate = i < 0 ? gates.control : gates.instance(i);
    const from = opts.requests?.length ?? 0;
    const args = ["--gate", gate, ...budget, ...(condition === "learn" ? ["--learn"] : []), inst.task];
    const run = await runTask(args, { cwd, env, home, timeoutMs: opts.timeoutMs });
    if (!run.id) throw new Error(`relm run made no session (exit ${run.code}): ${run.stderr.slice(-2000)}`);
    const fig = sessionFigures(run.events, lessons);
    const session = { task: inst.id, role, id: run.id, exit: run.code, ...fig };
    if (opts.requests) session.wire = wireFigures(opts.requests, from, model, project.key, run.events);
    track.sessions.push(session);
    say(
      `${inst.id} (${role}) ${fig.outcome}, ${fig.turns} turns, ${fig.failures} failed gates${fig.lessonInFirstRequest ? ", lesson at start" : ""}`,
    );
    if (condition === "learn") lessons.push(...fig.learned);
    if (condition === "refine" && role === "learn") {
      const step = await offlineRefine(run.id, { cwd, env, home, timeoutMs: opts.timeoutMs });
      track.learning.push(step);
      if (step.lesson) lessons.push(step.lesson);
      say(`refine of ${run.id}: ${step.summary}`);
    }
  }
  if (injected) track.inject = await judgeInjected(injected, { cwd, env });
  return track;
}

/** From the scripted server's capture: did the session's first request, and the request after a learning pass, carry the lesson? */
function wireFigures(requests, from, model, key, events) {
  const mine = requests
    .slice(from)
    .filter((r) => r.body?.model === model && !r.rawBody.includes("Propose harness edits"));
  const has = (r) => r !== undefined && lessonInRequest(r.body, key);
  const passAt = requests
    .slice(from)
    .findIndex((r) => r.body?.model === model && r.rawBody.includes("Propose harness edits"));
  const afterPass =
    passAt < 0 ? undefined : requests.slice(from + passAt + 1).find((r) => r.body?.model === model);
  return {
    requests: mine.length,
    firstHasLesson: has(mine[0]),
    learnPasses: events.filter((e) => e.type === "learn").length,
    beforePassHasLesson:
      passAt < 0
        ? null
        : has(
            requests
              .slice(from, from + passAt)
              .filter((r) => r.body?.model === model)
              .at(-1),
          ),
    afterPassHasLesson: afterPass ? has(afterPass) : null,
  };
}

/** refine → verify → promote (or export | import), after one learning session. */
async function offlineRefine(id, { cwd, env, home, timeoutMs }) {
  const step = { session: id };
  const before = readJournal(home, id).length;
  const refine = await relm(["refine", id, "--apply"], { cwd, env, timeoutMs });
  const journal = readJournal(home, id);
  step.refineTokens = journal
    .slice(before)
    .filter((e) => e.type === "llm_call")
    .reduce((s, e) => s + (e.usage?.inputTokens ?? 0) + (e.usage?.outputTokens ?? 0), 0);
  const rev = lastRevision(join(home, "sessions", id, "harness/revisions.jsonl"));
  const edit = rev?.edits?.find((e) => e.op === "add");
  if (refine.code !== 0 || !edit) {
    step.summary =
      refine.code !== 0 ? `refine failed: ${refine.stderr.trim().split("\n").at(-1)}` : "refine kept nothing";
    return step;
  }
  step.rev = rev.rev;
  step.entry = edit.id;
  step.lesson = edit.after.content;
  const verify = await relm(["harness", "verify", rev.rev, "--session", id, "--json"], {
    cwd,
    env,
    timeoutMs,
  });
  try {
    const v = JSON.parse(verify.stdout);
    step.verify = { passed: v.passed, summary: v.summary };
    step.verifyTokens = (v.with?.tokens ?? 0) + (v.without?.tokens ?? 0);
  } catch {
    step.verify = { passed: false, summary: (verify.stderr || verify.stdout).trim().split("\n").at(-1) };
    step.verifyTokens = 0;
  }
  const promote = await relm(["harness", "promote", edit.id, "--session", id], { cwd, env });
  step.promoted = promote.code === 0;
  step.promote = (promote.code === 0 ? promote.stdout : promote.stderr).trim().split("\n").at(-1);
  if (!step.promoted) {
    const exported = await relm(["harness", "export", "--session", id, edit.id], { cwd, env });
    const imported = await relm(["harness", "import", "-", "--scope", "project"], {
      cwd,
      env,
      input: exported.stdout,
    });
    step.imported = exported.code === 0 && imported.code === 0;
  }
  step.summary = `kept 1 lesson; verify ${step.verify.passed ? "passed" : "failed"}; ${step.promoted ? "promoted" : `promote refused (${step.promote}); ${step.imported ? "imported to the project instead" : "import failed too"}`}`;
  return step;
}

/** `relm harness stats` judges the project's edits; was the injected one reverted? */
async function judgeInjected(injected, { cwd, env }) {
  const stats = await relm(["harness", "stats", "--scope", "project", "--json"], { cwd, env });
  const rows = stats.stdout
    .split("\n")
    .filter((l) => l.trim().startsWith("{"))
    .map((l) => JSON.parse(l));
  const verdict = rows.find((r) => r.type === "verdict" && r.rev === injected.rev);
  const revert = revisions(join(cwd, ".relm/harness/revisions.jsonl")).find((r) => r.revert === injected.rev);
  return {
    rev: injected.rev,
    verdict: verdict?.verdict ?? "none",
    final: verdict?.final ?? false,
    reverted: Boolean(revert),
    summary: verdict?.summary ?? stats.stderr.trim(),
  };
}

export { INSTANCES };
