// What `relm harness verify REV` replays: the task(s) of the session the edit was learnt from, its gates,
// its model, and the checkpoint its files started from — all read from that session's journal.

import { join } from "node:path";
import { JOURNAL_FILE, readJournal, sessionDir } from "../../session/index.js";
import type { Revision } from "../store/index.js";
import { CONTINUATION, readTrace } from "./verdict-journal.js";

export interface ReplayPlan {
  session: string;
  /** The session's working directory (where its checkpoints were taken). */
  cwd: string;
  model: string;
  /** The user messages that started its tasks, in order (autonomous continuations left out). */
  tasks: string[];
  /** The gate commands of its last gate run; empty when it ran none. */
  gates: string[];
  /** The first checkpoint: the files as they were before the session's first cell. */
  checkpoint?: string;
}

/** The session an edit was learnt from: its evidence's, else the reviewed trajectory's. */
export function provenanceOf(revision: Revision): string | undefined {
  return revision.evidence?.session ?? revision.trajectory?.session;
}

/** Whether `session` ran in autonomous mode: an edit learnt there needs a passing replay check to be promoted. */
export function ranAutonomously(home: string, session: string): boolean {
  return readTrace(join(sessionDir(home, session), JOURNAL_FILE))?.autonomous === true;
}

/**
 * The replay of `session` for `revision`: the tasks the refinement reviewed (its trajectory's events),
 * else those begun before the revision was made, else all of them.
 */
export function replayPlan(home: string, session: string, revision: Revision): ReplayPlan {
  const { header, events } = readJournal(join(sessionDir(home, session), JOURNAL_FILE));
  const all = events.flatMap((e) =>
    e.type === "user" && !e.text.startsWith(CONTINUATION) ? [{ n: e.n, t: e.t, text: e.text }] : [],
  );
  const window = revision.trajectory?.session === session ? revision.trajectory : undefined;
  const reviewed = window ? all.filter((u) => u.n >= window.from && u.n <= window.to) : [];
  const before = all.filter((u) => u.t < revision.time);
  const chosen = reviewed.length > 0 ? reviewed : before.length > 0 ? before : all;
  const lastGate = events.findLast((e) => e.type === "gate_run");
  const gates =
    lastGate?.type === "gate_run" ? [...lastGate.results.map((r) => r.command), ...lastGate.skipped] : [];
  // The model the tasks ran on: a /model switch before the first task replaces the header's.
  const first = chosen[0]?.n ?? 0;
  const switched = events.findLast((e) => e.type === "model" && e.n < first);
  const checkpoint = events.find((e) => e.type === "checkpoint" && e.commit !== undefined);
  return {
    session: header.id,
    cwd: header.cwd,
    model: switched?.type === "model" ? switched.model : header.model,
    tasks: chosen.map((u) => u.text),
    gates,
    checkpoint: checkpoint?.type === "checkpoint" ? checkpoint.commit : undefined,
  };
}
