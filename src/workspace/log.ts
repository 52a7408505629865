// What a checkpoint commit says about itself, and reading it back from `git log`.

import { parseJson } from "../config/records.js";
import { oneLine } from "../config/text.js";

export interface SkippedFile {
  path: string;
  bytes: number;
}

export interface Checkpoint {
  /** The turn this is the state before. */
  turn: number;
  label?: string;
  /** ISO time the snapshot was taken. */
  time: string;
  commit: string;
  tree: string;
  /** Paths that differ from the previous checkpoint of this session (every path, for the first). */
  filesChanged: number;
  /** Files left out for being over the size limit. */
  skipped: SkippedFile[];
  /** Files git could not read (permissions, vanished mid-snapshot); the rest was snapshotted. */
  warnings?: string[];
}

const MAX_SKIPPED_LISTED = 50;

export function formatMessage(c: {
  turn: number;
  label?: string;
  sessionId: string;
  time: Date;
  skipped: SkippedFile[];
}): string {
  const lines = [
    `before turn ${c.turn}${c.label ? `: ${oneLine(c.label, 72)}` : ""}`,
    "",
    `Relm-Turn: ${c.turn}`,
    `Relm-Session: ${c.sessionId}`,
    `Relm-Time: ${c.time.toISOString()}`,
  ];
  if (c.label) lines.push(`Relm-Label: ${JSON.stringify(c.label)}`);
  // JSON keeps paths with newlines or odd bytes on one line.
  for (const s of c.skipped.slice(0, MAX_SKIPPED_LISTED)) {
    lines.push(`Relm-Skipped: ${JSON.stringify({ path: s.path, bytes: s.bytes })}`);
  }
  return `${lines.join("\n")}\n`;
}

function trailer(body: string, key: string): string[] {
  const prefix = `${key}: `;
  return body
    .split("\n")
    .filter((l) => l.startsWith(prefix))
    .map((l) => l.slice(prefix.length));
}

function jsonOf<T>(text: string | undefined): T | undefined {
  return text === undefined ? undefined : (parseJson(text) as T | undefined);
}

/**
 * Parses `git log --name-only --format=%x1e%H%x1f%T%x1f%B%x1f` (newest first). The paths after each
 * header are the files that commit changed; only their number is kept.
 */
export function parseLog(text: string): Checkpoint[] {
  const out: Checkpoint[] = [];
  for (const record of text.split("\x1e")) {
    if (record.trim() === "") continue;
    const [commit, tree, body, names] = record.split("\x1f");
    if (!commit || !tree || body === undefined) continue;
    const turn = Number(trailer(body, "Relm-Turn")[0]);
    if (!Number.isInteger(turn)) continue;
    const label = jsonOf<string>(trailer(body, "Relm-Label")[0]);
    const skipped = trailer(body, "Relm-Skipped")
      .map((t) => jsonOf<SkippedFile>(t))
      .filter((s): s is SkippedFile => s !== undefined && typeof s.path === "string");
    const filesChanged = (names ?? "").split("\n").filter((l) => l.length > 0).length;
    const checkpoint: Checkpoint = {
      turn,
      time: trailer(body, "Relm-Time")[0] ?? "",
      commit,
      tree,
      filesChanged,
      skipped,
    };
    if (label !== undefined) checkpoint.label = label;
    out.push(checkpoint);
  }
  return out;
}
