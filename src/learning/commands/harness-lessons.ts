// Per lesson, for `relm harness stats` (issue 21, item 5): where it came from (the session and journal
// events its evidence names, the revision and who wrote it), the sessions it was in force in (its prompt
// in any session, or read as a note in the session that learned it), what it did there, and its state
// (in force, on probation, pinned, promoted from probation).

import { existsSync } from "node:fs";
import { join } from "node:path";
import { JOURNAL_FILE, readJournal, sessionDir } from "../../session/index.js";
import { type EntryState, type HarnessStore, VerdictLog } from "../store/index.js";
import type { EntryOutcome } from "../verdicts/verdict-stats.js";
import { fixed } from "../verdicts/verdict-windows.js";
import type { Evaluated } from "../verdicts/verdicts.js";

interface LessonOrigin {
  /** The session whose journal its evidence numbers, and the events it cites (their span). */
  session: string | null;
  events: { from: number; to: number } | null;
  /** The revision that added it to its scope, and who wrote that revision. */
  revision: string;
  author: string;
  /** It came into this scope from probation (promoted by its verdict or by a person). */
  fromProbation?: boolean;
}

interface LessonRow {
  origin: LessonOrigin | null;
  /** Sessions it was in force in, oldest first. */
  sessions: string[];
  /** Where it stands (in force, on probation, pinned, promoted) with the verdict on it so far. */
  state: string;
  short: LessonState;
}

/** The revision that added `entry` to its scope (a promotion or import keeps the evidence it came with). */
function originOf(entry: EntryState, store: HarnessStore): LessonOrigin | null {
  const added = store.revisions().find((r) => r.edits.some((e) => e.id === entry.id && e.op === "add"));
  if (!added) return null;
  const edit = added.edits.find((e) => e.id === entry.id);
  const cited = edit?.evidence?.length ? edit.evidence : (added.evidence?.events ?? []);
  const session = added.verdict?.session ?? added.evidence?.session ?? added.trajectory?.session ?? null;
  return {
    session,
    events: cited.length > 0 ? { from: Math.min(...cited), to: Math.max(...cited) } : null,
    revision: added.rev,
    author: added.author,
    ...(added.verdict?.scope === "probation" || added.reason.includes("from probation")
      ? { fromProbation: true }
      : {}),
  };
}

/** Whether `session`'s journal shows the entry handed to its agents as a note (src/agent/lessons.ts). */
function taughtIn(home: string, session: string, entry: string): boolean {
  const path = join(sessionDir(home, session), JOURNAL_FILE);
  if (!existsSync(path)) return false;
  try {
    return readJournal(path).events.some((e) => e.type === "lesson" && e.entries.includes(entry));
  } catch {
    return false;
  }
}

function verdictState(judged: Evaluated | undefined): string {
  if (!judged) return "not judged yet";
  const { verdict, final } = judged.judgement;
  if (verdict === "pending") return "verdict pending";
  const soFar = final ? "" : " so far";
  if (verdict === "regressed" && judged.refused) return `regressed${soFar} (not reverted: ${judged.refused})`;
  return `${verdict}${soFar}`;
}

/** In one word, for the table: in force, on probation, pinned (on probation), promoted (from probation). */
type LessonState = "in force" | "on probation" | "pinned" | "promoted";

function stateOf(
  entry: EntryState,
  origin: LessonOrigin | null,
  judged: Evaluated | undefined,
  pinned: boolean,
): { state: string; short: LessonState } {
  const verdict = verdictState(judged);
  if (entry.scope === "probation") {
    if (pinned)
      return { state: `pinned on probation (verdicts do not act on it), ${verdict}`, short: "pinned" };
    const waiting = judged?.waiting ? ` — stays on probation: ${judged.waiting}` : "";
    return { state: `on probation, ${verdict}${waiting}`, short: "on probation" };
  }
  if (origin?.fromProbation)
    return {
      state: `promoted from probation (revision ${origin.revision}), in force, ${verdict}`,
      short: "promoted",
    };
  return { state: `in force, ${verdict}`, short: "in force" };
}

export function lessonRow(
  home: string,
  entry: EntryState,
  store: HarnessStore,
  outcome: EntryOutcome | undefined,
  judged: Evaluated | undefined,
): LessonRow {
  const origin = originOf(entry, store);
  const sessions = [...(outcome?.sessionIds ?? [])];
  if (origin?.session && !sessions.includes(origin.session) && taughtIn(home, origin.session, entry.id))
    sessions.unshift(origin.session);
  const pinned =
    entry.scope === "probation" && new VerdictLog(store.location, home).pinnedEntries().has(entry.id);
  return { origin, sessions, ...stateOf(entry, origin, judged, pinned) };
}

/** The lines `relm harness stats` prints for one lesson under the table. */
export function describeLesson(
  entry: EntryState,
  row: LessonRow,
  outcome: EntryOutcome | undefined,
  judged: Evaluated | undefined,
): string[] {
  const text = entry.content.split("\n")[0] ?? "";
  const lines = [
    `${entry.id} (${entry.scope} ${entry.kind}): ${text.length > 90 ? `${text.slice(0, 89)}…` : text}`,
  ];
  const o = row.origin;
  if (o) {
    const where = o.session
      ? `session ${o.session}${o.events ? `, events ${o.events.from}${o.events.to === o.events.from ? "" : `–${o.events.to}`}` : ""}`
      : "no session (written by hand)";
    lines.push(`  from: ${where}; revision ${o.revision} by ${o.author}`);
  }
  lines.push(`  in force in: ${row.sessions.length > 0 ? row.sessions.join(", ") : "no session yet"}`);
  const effect: string[] = [];
  if (outcome && outcome.attempts > 0)
    effect.push(
      `gates green ${outcome.green}/${outcome.attempts}, ${fixed(outcome.turnsToGreen)} turns to green`,
    );
  if (outcome && outcome.cells > 0) effect.push(`cells failed ${outcome.failedCells}/${outcome.cells}`);
  if (judged?.judgement.summary) effect.push(judged.judgement.summary);
  lines.push(`  effect: ${effect.length > 0 ? effect.join("; ") : "nothing measured yet"}`);
  lines.push(`  state: ${row.state}`);
  return lines;
}
