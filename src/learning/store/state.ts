import { randomBytes } from "node:crypto";
import type { Edit, Entry, EntryKind, Revision } from "./types.js";

// Crockford base32 without i, l, o, u, as session ids: easy to read aloud and to type as a prefix.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

function randomId(length: number): string {
  let id = "";
  for (const b of randomBytes(length)) id += ALPHABET[b & 31];
  return id;
}

const ID_PREFIX: Record<EntryKind, string> = {
  prompt: "prompt",
  memory: "mem",
  skill: "skill",
  agent: "agent",
};

export function newEntryId(kind: EntryKind): string {
  return `${ID_PREFIX[kind]}-${randomId(6)}`;
}

export function newRevisionId(): string {
  return `r${randomId(7)}`;
}

/** Entry ids as they appear in prompts and replies, e.g. [mem-3k9x2a]. */
export const ENTRY_ID_PATTERN = /\b(?:prompt|mem|skill|agent)-[0-9a-hjkmnp-tv-z]{6}\b/g;

/** Text compared for duplicates: case, punctuation and spacing do not make a lesson new. */
export function normaliseText(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** Two entries say the same lesson: the same text (normalised), or a skill or spec of the same name. */
export function sameLesson(a: Pick<Entry, "kind" | "title" | "content">, b: typeof a): boolean {
  if (normaliseText(a.content) === normaliseText(b.content)) return true;
  return (a.kind === "skill" || a.kind === "agent") && a.kind === b.kind && a.title === b.title;
}

/** An entry with its last revision, as derivation keeps it. */
export type Current = Map<string, { entry: Entry; rev: string }>;

/** The entries of a derived state, without their revisions. */
export function entriesOf(state: Current): Entry[] {
  return [...state.values()].map((s) => s.entry);
}

export function applyEdits(state: Current, edits: readonly Edit[], rev: string): void {
  for (const edit of edits) {
    // File order wins: logs merged by git (two branches appending) still derive one state.
    if (edit.after) state.set(edit.id, { entry: edit.after, rev });
    else state.delete(edit.id);
  }
}

/** The state after every revision, in file order. */
export function deriveState(revisions: readonly Revision[]): Current {
  const state: Current = new Map();
  for (const r of revisions) applyEdits(state, r.edits, r.rev);
  return state;
}

/** Revisions after `index` that touched any entry `revision` touched. */
export function laterTouching(revisions: readonly Revision[], index: number): Revision[] {
  const target = revisions[index];
  if (!target) return [];
  const ids = new Set(target.edits.map((e) => e.id));
  return revisions.slice(index + 1).filter((r) => r.edits.some((e) => ids.has(e.id)));
}

/**
 * The edits that undo `revision` against the current state. Without later edits to its entries this
 * is its exact inverse; forced over later edits, each entry goes back to what it was before `revision`.
 */
export function inverseEdits(revision: Revision, state: Current): Edit[] {
  const out: Edit[] = [];
  for (const edit of [...revision.edits].reverse()) {
    const now = state.get(edit.id)?.entry ?? null;
    const target = edit.before;
    if (target === null && now === null) continue;
    if (target !== null && now !== null && JSON.stringify(target) === JSON.stringify(now)) continue;
    const op = target === null ? "remove" : now === null ? "add" : "update";
    out.push({ op, id: edit.id, before: now, after: target, reason: `undo ${edit.op} in ${revision.rev}` });
  }
  return out;
}

/** Entries sorted the one way everything prints them: kind, creation time, id. */
export function sortEntries<T extends Entry>(entries: Iterable<T>): T[] {
  const order = ["prompt", "memory", "skill", "agent"];
  return [...entries].sort(
    (a, b) =>
      order.indexOf(a.kind) - order.indexOf(b.kind) ||
      a.created.localeCompare(b.created) ||
      a.id.localeCompare(b.id),
  );
}
