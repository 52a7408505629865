// Running the built relm binary as a user would, and reading what a session left in its journal.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const RELM = join(ROOT, "dist/cli/relm.cjs");

/** Runs `relm ARGS` in `cwd`; resolves with its exit code and output (never rejects on a non-zero exit). */
export function relm(args, { cwd, env, input = "", timeoutMs = 15 * 60_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RELM, ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

export const sessionIds = (home) =>
  existsSync(join(home, "sessions")) ? readdirSync(join(home, "sessions")).sort() : [];

export function readJournal(home, id) {
  const text = readFileSync(join(home, "sessions", id, "journal.jsonl"), "utf8");
  return text
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return []; // a torn last line: readers skip it
      }
    });
}

/** `relm run` of one task: the new session's id and journal with the run's result. */
export async function runTask(args, { cwd, env, home, timeoutMs }) {
  const before = new Set(sessionIds(home));
  const run = await relm(["run", ...args], { cwd, env, timeoutMs });
  const id = sessionIds(home).find((s) => !before.has(s));
  return { ...run, id, events: id ? readJournal(home, id) : [] };
}

const tokensOf = (usage) => (usage ? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0) : 0);
const norm = (text) => text.replace(/\s+/g, " ").trim();
/** A gate failure "the same way": its output with numbers blanked (as relm's own streak rule does). */
const failureShape = (run) =>
  run.results
    .filter((r) => !r.passed)
    .map((r) => `${r.command}\n${r.output.replace(/\d+/g, "#")}`)
    .join("\n");

/**
 * What the first model request of a session carried: the system prompt and every message relm put
 * before it (the task, lesson notes, anything a later relm adds there), from the journal.
 */
export function firstRequestText(events) {
  const at = events.findIndex((e) => e.type === "model_request");
  const before = at < 0 ? events : events.slice(0, at);
  return before
    .filter((e) => typeof e.text === "string")
    .map((e) => e.text)
    .join("\n");
}

/**
 * One session's figures, from its journal. `lessons` are the texts of lessons the condition made
 * available before the session started (to tell whether its first request carried one).
 */
export function sessionFigures(events, lessons = []) {
  const responses = events.filter((e) => e.type === "model_response");
  const gateRuns = events.filter((e) => e.type === "gate_run");
  const learnPasses = events.filter((e) => e.type === "learn");
  const end = events.find((e) => e.type === "autonomy_end");
  const green = gateRuns.find((g) => g.passed);
  const greenAt = green?.n ?? Number.POSITIVE_INFINITY;
  const failures = gateRuns.filter((g) => !g.passed);
  const seen = new Set();
  const repeat = failures.find((g) => {
    const shape = failureShape(g);
    if (seen.has(shape)) return true;
    seen.add(shape);
    return false;
  });
  const learnTokens = learnPasses.reduce((s, e) => s + (e.tokens ?? 0), 0);
  const compactionTokens = events
    .filter((e) => e.type === "compaction")
    .reduce((s, e) => s + tokensOf(e.usage), 0);
  const between = (e, from) => e.n > from && e.n < greenAt;
  const first = norm(firstRequestText(events));
  const lessonFirst = lessons.some((l) => first.includes(norm(l)));
  const lessonNote = events.find((e) => e.type === "lesson");
  const lessonAt = lessonFirst ? 0 : lessonNote?.n;
  return {
    outcome: end?.outcome ?? "no end",
    green: Boolean(green),
    turns: responses.length,
    tokens: responses.reduce((s, e) => s + tokensOf(e.usage), 0) + learnTokens + compactionTokens,
    learnTokens,
    gateRuns: gateRuns.length,
    failures: failures.length,
    repeated: Boolean(repeat),
    turnsAfterRepeat: repeat ? responses.filter((e) => between(e, repeat.n)).length : 0,
    tokensAfterRepeat: repeat
      ? responses.filter((e) => between(e, repeat.n)).reduce((s, e) => s + tokensOf(e.usage), 0) +
        learnPasses.filter((e) => between(e, repeat.n)).reduce((s, e) => s + (e.tokens ?? 0), 0)
      : 0,
    lessonInFirstRequest: lessonFirst,
    lessonAt: lessonAt ?? null,
    repeatsAfterLesson: lessonAt === undefined ? null : failures.filter((g) => g.n > lessonAt).length,
    learned: learnPasses.flatMap((e) =>
      e.outcome === "applied" ? (e.applied ?? []).map((a) => a.content) : [],
    ),
    passes: learnPasses.map((e) => ({ trigger: e.trigger, outcome: e.outcome, reason: e.reason })),
    verdicts: events
      .filter((e) => e.type === "harness_verdict")
      .map((e) => ({ rev: e.rev, verdict: e.verdict, reverted: e.reverted })),
  };
}
