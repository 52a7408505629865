// Turns whose work tree was the same as the last checkpoint's: recorded as one appended line
// ("TURN COMMIT TIME") in the shadow repository, instead of a new commit object and a ref update per turn
// (issue 24: nothing per turn when nothing changed). A restore of such a turn restores that commit's
// tree, exactly what a commit of the same tree would have held; listing merges them with the commits.

import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirs } from "../config/dirs.js";

interface SameTurn {
  turn: number;
  commit: string;
  time: string;
}

function sameFile(gitDir: string, sessionId: string): string {
  return join(gitDir, "relm-same", sessionId);
}

/** Appends a turn that changed nothing since `commit` (one write; its directory made on first need). */
export function recordSame(gitDir: string, sessionId: string, same: SameTurn): void {
  const file = sameFile(gitDir, sessionId);
  const line = `${same.turn} ${same.commit} ${same.time}\n`;
  try {
    appendFileSync(file, line);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    makeDirs(join(gitDir, "relm-same"));
    appendFileSync(file, line);
  }
}

/** The recorded turns, in the order written; a torn last line (a crash mid-append) is skipped. */
export function readSame(gitDir: string, sessionId: string): SameTurn[] {
  let text: string;
  try {
    text = readFileSync(sameFile(gitDir, sessionId), "utf8");
  } catch {
    return [];
  }
  const out: SameTurn[] = [];
  for (const line of text.split("\n")) {
    const m = /^(\d+) ([0-9a-f]{40}) (\S+)$/.exec(line);
    if (m) out.push({ turn: Number(m[1]), commit: m[2] as string, time: m[3] as string });
  }
  return out;
}
