// The parts of a root session's journal that verdicts read, kept small and cached per file: which prompt
// was in force, where tasks began, model calls with their tokens, cells and their errors, gate runs.

import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { JOURNAL_FILE, readHeaderAndTail, readJournal, sessionsDir } from "../../session/index.js";
import type { JournalEvent } from "../../session/types.js";
import { projectRoot } from "../store/index.js";

/** The message autonomous mode sends between turns: a continuation, not a new task. */
export const CONTINUATION = "[relm: autonomous mode]";

type Trace =
  | { k: "prompt"; n: number; t: string; text: string }
  /** A message that starts a task (not an autonomous continuation). */
  | { k: "task"; n: number; t: string }
  | { k: "turn"; n: number; t: string; tokens: number; text: string }
  | { k: "cell"; n: number; t: string; code: string }
  | { k: "out"; n: number; t: string; failed: boolean; error?: string }
  | { k: "gate"; n: number; t: string; passed: boolean; failing?: string }
  | { k: "end"; n: number; t: string };

export interface SessionTrace {
  id: string;
  created: string;
  /** The session ran in autonomous mode at some point (gate runs, an autonomous end, continuations). */
  autonomous: boolean;
  events: Trace[];
}

/** An error as comparable text: its name and message, with what changes from run to run blanked. */
function errorSignature(name: string, message: string): string {
  const text = message
    .toLowerCase()
    .replace(/0x[0-9a-f]+/g, "#")
    .replace(/\d+/g, "#")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 80);
  return `${name}: ${text}`;
}

export function gateSignature(command: string): string {
  return `gate: ${command}`;
}

function traceOf(e: JournalEvent): Trace | undefined {
  const at = { n: e.n, t: e.t };
  switch (e.type) {
    case "system_prompt":
      return { k: "prompt", ...at, text: e.text };
    case "user":
      return e.text.startsWith(CONTINUATION) ? undefined : { k: "task", ...at };
    case "model_response":
      return { k: "turn", ...at, tokens: e.usage.inputTokens + e.usage.outputTokens, text: e.text };
    case "cell":
      return { k: "cell", ...at, code: e.code };
    case "cell_output": {
      const failed = e.status !== "ok" || (e.exitCode !== undefined && e.exitCode !== 0);
      const error = e.error
        ? errorSignature(e.error.name, e.error.value)
        : e.exitCode
          ? errorSignature("exit", String(e.exitCode))
          : undefined;
      return { k: "out", ...at, failed, ...(error ? { error } : {}) };
    }
    case "gate_run": {
      const failing = e.results.find((r) => !r.passed)?.command;
      return { k: "gate", ...at, passed: e.passed, ...(failing ? { failing } : {}) };
    }
    case "autonomy_end":
      return { k: "end", ...at };
    default:
      return undefined;
  }
}

const cache = new Map<string, { key: string; trace: SessionTrace }>();

/** A root journal's trace; re-read only when the file changed since the last read in this process. */
export function readTrace(journalPath: string): SessionTrace | undefined {
  let key: string;
  try {
    const st = statSync(journalPath);
    key = `${st.size}:${st.mtimeMs}`;
  } catch {
    return undefined;
  }
  const hit = cache.get(journalPath);
  if (hit?.key === key) return hit.trace;
  let journal: ReturnType<typeof readJournal>;
  try {
    journal = readJournal(journalPath);
  } catch {
    // A damaged journal is left out of every window rather than failing the evaluation.
    return undefined;
  }
  const events = journal.events.flatMap((e) => traceOf(e) ?? []);
  const autonomous = journal.events.some(
    (e) =>
      e.type === "gate_run" ||
      e.type === "autonomy_end" ||
      (e.type === "user" && e.text.startsWith(CONTINUATION)),
  );
  const trace = { id: journal.header.id, created: journal.header.created, autonomous, events };
  cache.set(journalPath, { key, trace });
  return trace;
}

const cwds = new Map<string, string | null>();

/** A journal's working directory from its header alone (headers never change): null when unreadable. */
function cwdOf(journalPath: string): string | null {
  let cwd = cwds.get(journalPath);
  if (cwd === undefined) {
    try {
      cwd = readHeaderAndTail(journalPath, 1).header.cwd;
    } catch {
      cwd = null;
    }
    if (cwd !== null) cwds.set(journalPath, cwd);
  }
  return cwd;
}

/** Root sessions under $RELM_HOME whose working directory `accept`s, oldest first. */
export function sessionTraces(home: string, accept: (cwd: string) => boolean): SessionTrace[] {
  const dir = sessionsDir(home);
  if (!existsSync(dir)) return [];
  const out: SessionTrace[] = [];
  for (const id of readdirSync(dir)) {
    const path = join(dir, id, JOURNAL_FILE);
    // Only the sessions that can count are read in full.
    const cwd = cwdOf(path);
    if (cwd === null || !accept(cwd)) continue;
    const trace = readTrace(path);
    if (trace) out.push(trace);
  }
  return out.sort((a, b) => a.created.localeCompare(b.created));
}

/** Sessions of the project `cwd` belongs to. */
export function projectTraces(home: string, cwd: string): SessionTrace[] {
  const root = projectRoot(cwd);
  const memo = new Map<string, boolean>();
  return sessionTraces(home, (c) => {
    let same = memo.get(c);
    if (same === undefined) {
      same = projectRoot(c) === root;
      memo.set(c, same);
    }
    return same;
  });
}
