// Reading a scope's revisions.jsonl. One damaged line must not cost the whole harness (it used to stop
// every session of the project): a line that is not a revision, an edit in it with an incomplete entry
// and git's conflict markers are left out, and said so once per file, naming the lines and the fix; the
// rest derives as usual. A half-written last line (a crash mid-append) is not damage: it is ignored and
// cut off before the next append. A line written by a newer relm stops reading, since what it means is
// unknown here.
import { existsSync } from "node:fs";
import { FileShapeError, readBoundedText } from "../../config/bounded-read.js";
import { UserError } from "../../config/errors.js";
import { checkRevisionLine } from "./revision-schema.js";
import { HARNESS_LOG_VERSION, type Revision } from "./types.js";

/** The log cannot be read at all (written by a newer relm). The message names the file and line. */
export class HarnessLogError extends UserError {
  override name = "HarnessLogError";
  readonly code = "usage";
}

/** A line (or an edit of one) left out of the derivation, and why. */
export interface LogProblem {
  line: number;
  reason: string;
}

interface LogRead {
  revisions: Revision[];
  problems: LogProblem[];
  /** Byte offset of a half-written last line, to cut before the next append. */
  tornAt?: number;
  /** The last line is whole but has no newline: one goes before the next append. */
  unterminated?: boolean;
}

const MERGE_MARKER = /^(<{7}|={7}|>{7}|\|{7})(\s|$)/;

/**
 * A harness file's text. The project's sit in `.relm/harness/`, which a kernel could have made (a sandbox
 * opened without `.relm/` leaves it writable): a FIFO there would block a plain read forever.
 */
function readHarnessFile(path: string): string {
  try {
    return readBoundedText(path, HARNESS_FILE_BYTES);
  } catch (error) {
    if (error instanceof FileShapeError) throw new HarnessLogError(error.message);
    throw error;
  }
}

/** No harness file is read past this (a string cannot be much longer anyway). */
const HARNESS_FILE_BYTES = 256 * 1024 * 1024;

export function readLog(path: string): LogRead {
  if (!existsSync(path)) return { revisions: [], problems: [] };
  const lines = readHarnessFile(path).split("\n");
  const revisions: Revision[] = [];
  const problems: LogProblem[] = [];
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const last = i === lines.length - 1;
    const n = i + 1;
    if (line.trim() !== "") {
      if (MERGE_MARKER.test(line)) {
        problems.push({ line: n, reason: "an unresolved merge: keep both sides' lines" });
      } else {
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch (error) {
          if (last) return { revisions, problems, tornAt: offset };
          problems.push({ line: n, reason: `not JSON (${(error as Error).message})` });
        }
        if (parsed !== undefined) readLine(parsed, n, path, revisions, problems);
        if (last && parsed !== undefined) return { revisions, problems, unterminated: true };
      }
    }
    offset += Buffer.byteLength(line, "utf8") + 1;
  }
  return { revisions, problems };
}

function readLine(parsed: unknown, n: number, path: string, revisions: Revision[], problems: LogProblem[]) {
  const version = (parsed as { v?: unknown } | null)?.v;
  if (typeof version === "number" && version > HARNESS_LOG_VERSION) {
    throw new HarnessLogError(
      `${path}:${n}: written by a newer relm (format ${version}); upgrade relm to read this harness`,
    );
  }
  const checked = checkRevisionLine(parsed);
  if (!checked.ok) {
    problems.push({ line: n, reason: checked.reason });
    return;
  }
  revisions.push(checked.revision);
  for (const bad of checked.badEdits) problems.push({ line: n, reason: bad });
}

/** The values of a JSON-lines file (uses, verdicts, proposals), in order; blank and torn lines are skipped. */
export function readJsonLines(path: string): unknown[] {
  if (!existsSync(path)) return [];
  return readHarnessFile(path)
    .split("\n")
    .flatMap((line) => {
      if (line.trim() === "") return [];
      try {
        return [JSON.parse(line) as unknown];
      } catch {
        return []; // a crash mid-append loses only that line
      }
    });
}

/** One warning for a file's problems: where, what, and how to fix it. */
export function describeLogProblems(path: string, problems: readonly LogProblem[]): string {
  const lines = [...new Set(problems.map((p) => p.line))];
  const what = problems.map((p) => `line ${p.line}, ${p.reason}`).join("; ");
  const those = lines.length === 1 ? "that line" : "those lines";
  return (
    `harness log ${path}:${lines.join(",")}: left out ${what}. The rest of the harness loads; repair or ` +
    `delete ${those} (every edit carries its whole entry before and after: docs/harness.md, "The revision log")`
  );
}

// What each log read last found wrong, so a command can warn once per file however often it read it.
const found = new Map<string, string>();
const warned = new Set<string>();

export function noteLogProblems(path: string, problems: readonly LogProblem[]): void {
  if (problems.length === 0) found.delete(path);
  else found.set(path, describeLogProblems(path, problems));
}

/** The warnings about damaged logs read by this process that were not taken before. */
export function takeLogWarnings(): string[] {
  const out = [...found.values()].filter((w) => !warned.has(w));
  for (const w of out) warned.add(w);
  return out;
}
