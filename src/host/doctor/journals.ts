// relm doctor's look at journals: each one of a session without a live host, its sub-agents' included,
// is read whole. A torn last line (a crash mid-write) is cut off; a line damaged in the middle is
// reported with where, what is lost and how to recover: --fix keeps a copy of the original and cuts the
// journal just before the damage, so the session reads (and resumes) as if it had stopped there.

import { unlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { checkJournal, cutAtDamage, JOURNAL_FILE, Journal } from "../../session/index.js";
import { statePath } from "../paths.js";
import { forgetState } from "../states/log.js";
import { journalDirs } from "../states/tree-usage.js";
import type { Finding } from "./finding.js";

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** What is wrong with the journals of session `id` (in `dir`), and how each is set right. */
export function journalFindings(home: string, id: string, dir: string): Finding[] {
  const found: Finding[] = [];
  for (const journalDir of journalDirs(dir)) {
    const path = join(journalDir, JOURNAL_FILE);
    const subject =
      journalDir === dir ? "the journal" : `the journal of sub-agent ${relative(dir, journalDir)}`;
    const health = checkJournal(path);
    if (health.kind === "torn") {
      found.push({
        problem: `session ${id}: ${subject}'s last line is half-written (a crash mid-write)`,
        fix: "cut the torn line off (everything before it is intact)",
        apply: () => Journal.open(journalDir).close(),
      });
    }
    if (health.kind !== "damaged") continue;
    const { error, eventsBefore, linesFrom } = health;
    const line = error.line ?? "?";
    const problem =
      `session ${id}: ${subject} (${path}) is damaged at line ${line}: ${error.reason}; ${plural(linesFrom, "line")} ` +
      "from there on cannot be read, so the session cannot be resumed, attached to or exported";
    if (error.line === 1 || error.offset === undefined || error.offset === 0) {
      found.push({
        problem,
        fix: `nothing before the header to keep: restore the file from a backup, or move ${journalDir} away`,
      });
      continue;
    }
    const offset = error.offset;
    found.push({
      problem,
      fix:
        `keep a copy as ${JOURNAL_FILE}.damaged-TIME and cut the journal before line ${line}, keeping its first ` +
        `${plural(eventsBefore, "event")} (to keep more, mend line ${line} of the copy by hand and put it back)`,
      apply: () => {
        cutAtDamage(journalDir, offset);
        // The session's summary described the journal before the cut: the next listing rebuilds it.
        if (journalDir === dir) {
          unlinkIfThere(statePath(home, id));
          forgetState(home, id);
        }
      },
    });
  }
  return found;
}

function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // none written yet
  }
}
