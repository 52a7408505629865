// The recorded cells of a project's sessions, for mining repeated work into skills.
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { JOURNAL_FILE, type JournalEvent, readJournal, sessionsDir } from "../../session/index.js";
import { readSessionFile } from "../../session/session-files.js";
import { projectRoot } from "../store/paths.js";
import type { RecordedCell, RecordedSession } from "./mine-chains.js";

/** Root sessions read at most, newest first: mining looks at recent work. */
const MINED_SESSIONS = 200;

interface ProjectSessions {
  root: string;
  sessions: RecordedSession[];
  /** Journals that could not be read (damaged, another version), with why: skipped, and said so. */
  unreadable: { path: string; reason: string }[];
}

/**
 * Every session (and child agent) whose working directory belongs to the project of `cwd`, oldest
 * first, each as its cells in order with their outputs.
 */
export function projectSessions(home: string, cwd: string, limit = MINED_SESSIONS): ProjectSessions {
  const root = resolve(projectRoot(cwd));
  const dir = sessionsDir(home);
  const found: { created: string; id: string; sessions: RecordedSession[] }[] = [];
  const unreadable: ProjectSessions["unreadable"] = [];
  const ids = existsSync(dir) ? readdirSync(dir).sort() : [];
  for (const id of ids) {
    const sessionDir = join(dir, id);
    const journal = join(sessionDir, JOURNAL_FILE);
    if (!existsSync(journal)) continue;
    const read = readSession(sessionDir, id, root, unreadable);
    if (read) found.push({ created: read.created, id, sessions: read.sessions });
  }
  found.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
  return { root, sessions: found.slice(-limit).flatMap((f) => f.sessions), unreadable };
}

function readSession(
  sessionDir: string,
  label: string,
  root: string,
  unreadable: ProjectSessions["unreadable"],
): { created: string; sessions: RecordedSession[] } | undefined {
  const path = join(sessionDir, JOURNAL_FILE);
  let journal: ReturnType<typeof readJournal>;
  try {
    journal = readJournal(path);
  } catch (error) {
    unreadable.push({ path, reason: (error as Error).message });
    return undefined;
  }
  const cwd = resolve(journal.header.cwd);
  if (resolve(projectRoot(cwd)) !== root) return undefined;
  const sessions: RecordedSession[] = [{ id: label, cwd, cells: cellsOf(journal.events, sessionDir) }];
  const children = join(sessionDir, "children");
  if (existsSync(children)) {
    for (const child of readdirSync(children).sort()) {
      const sub = readSession(join(children, child), `${label}/children/${child}`, root, unreadable);
      if (sub) sessions.push(...sub.sessions);
    }
  }
  return { created: journal.header.created, sessions };
}

/** Cells paired with their outputs by call id; a cell that never finished counts as failed. */
function cellsOf(events: readonly JournalEvent[], sessionDir: string): RecordedCell[] {
  const outputs = new Map<string, Extract<JournalEvent, { type: "cell_output" }>>();
  for (const e of events) if (e.type === "cell_output") outputs.set(e.callId, e);
  const cells: RecordedCell[] = [];
  for (const e of events) {
    if (e.type !== "cell") continue;
    const out = outputs.get(e.callId);
    let output = out?.output ?? "";
    let complete = true;
    if (out?.truncated) {
      const full = out.fullOutputFile ? readSessionFile(sessionDir, out.fullOutputFile) : null;
      if (full) output = full.toString("utf8");
      else complete = false;
    }
    cells.push({
      event: e.n,
      code: e.code,
      output,
      ok: out?.status === "ok" && out.exitCode === undefined,
      complete,
    });
  }
  return cells;
}
