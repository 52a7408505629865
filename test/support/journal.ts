import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { until } from "./wait.js";

export interface JournalLine {
  type: string;
  n?: number;
  [key: string]: unknown;
}

/** The journal lines of the only session under a RELM_HOME. */
export function onlyJournal(home: string): { dir: string; lines: JournalLine[]; raw: string } {
  const sessions = readdirSync(join(home, "sessions"));
  if (sessions.length !== 1) throw new Error(`expected one session, found ${sessions.length}`);
  const dir = join(home, "sessions", sessions[0] as string);
  const raw = readFileSync(join(dir, "journal.jsonl"), "utf8");
  const lines = raw
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as JournalLine);
  return { dir, lines, raw };
}

/** The journal lines of the only session under a RELM_HOME so far: none before its journal is made. */
export function onlyJournalSoFar(home: string): JournalLine[] {
  try {
    return onlyJournal(home).lines;
  } catch {
    return [];
  }
}

/** SIGKILLs the host of the only session under a RELM_HOME (its pid in state.json); resolves once it is gone. */
export async function killOnlyHost(home: string): Promise<void> {
  const state = JSON.parse(readFileSync(join(onlyJournal(home).dir, "state.json"), "utf8")) as {
    pid: number;
  };
  process.kill(state.pid, "SIGKILL");
  await until(() => {
    try {
      process.kill(state.pid, 0);
      return undefined;
    } catch {
      return true;
    }
  });
}

/** The journal lines of session `id` under a RELM_HOME. */
export function readJournalLines(home: string, id: string): JournalLine[] {
  return readFileSync(join(home, "sessions", id, "journal.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as JournalLine);
}

/**
 * Every file under a directory, as text (journals, outputs, snapshots). Read while the session writes:
 * a file gone between the listing and the read (state.json's temporary file, renamed into place) is
 * skipped.
 */
export function allText(dir: string): string {
  if (!existsSync(dir)) return "";
  let out = "";
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out += allText(path);
    else {
      try {
        if (statSync(path).size < 5_000_000) out += readFileSync(path, "latin1");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
  }
  return out;
}
