// What one line of a scope's revisions.jsonl must hold to be derived from. Logs are written by relm but
// edited by people and merged by git, so each line is checked as it is read: a line that is not a
// revision, or an edit in it whose entry is incomplete (a missing `content` crashed every listing and
// every session), is left out and said so, and the rest of the log still loads.
import * as v from "valibot";
import { type Edit, type Entry, KINDS, type Revision } from "./types.js";

const ENTRY = v.looseObject({
  id: v.pipe(v.string(), v.nonEmpty()),
  kind: v.picklist(KINDS),
  title: v.optional(v.string(), ""),
  content: v.string(),
  source: v.optional(v.picklist(["refine", "user"]), "user"),
  created: v.string(),
  updated: v.optional(v.string()),
  code: v.optional(v.string()),
});

const EDIT = v.looseObject({
  op: v.picklist(["add", "update", "remove"]),
  id: v.pipe(v.string(), v.nonEmpty()),
  before: v.nullable(ENTRY),
  after: v.nullable(ENTRY),
  evidence: v.optional(v.array(v.number())),
  reason: v.optional(v.string()),
  hypothesis: v.optional(v.string()),
});

/** The revision's own fields; its edits are checked one by one, so one bad edit does not lose the rest. */
const REVISION = v.looseObject({
  v: v.number(),
  rev: v.pipe(v.string(), v.nonEmpty()),
  seq: v.number(),
  parent: v.optional(v.nullable(v.string()), null),
  time: v.string(),
  author: v.optional(v.string(), ""),
  reason: v.optional(v.string(), ""),
  evidence: v.optional(v.nullable(v.looseObject({ session: v.string(), events: v.array(v.number()) })), null),
  trajectory: v.optional(v.looseObject({ session: v.string(), from: v.number(), to: v.number() })),
  revert: v.optional(v.string()),
  edits: v.array(v.unknown()),
});

/** The first problem valibot found, as `field: what` (e.g. `after.content: missing`). */
function problem(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0];
  if (!issue) return "not valid";
  const path = v.getDotPath(issue);
  const what = issue.input === undefined ? "missing" : `expected ${issue.expected ?? "something else"}`;
  return path ? `${path}: ${what}` : what;
}

type CheckedLine = { ok: true; revision: Revision; badEdits: string[] } | { ok: false; reason: string };

/** One parsed line: the revision with its good edits, and why each bad edit was left out. */
export function checkRevisionLine(parsed: unknown): CheckedLine {
  const head = v.safeParse(REVISION, parsed);
  if (!head.success) return { ok: false, reason: `not a revision (${problem(head.issues)})` };
  const edits: Edit[] = [];
  const badEdits: string[] = [];
  head.output.edits.forEach((raw, i) => {
    const edit = v.safeParse(EDIT, raw);
    if (edit.success) {
      const e = edit.output;
      // An edit must leave something to derive: an entry after it, or one it removed.
      if (e.before === null && e.after === null)
        badEdits.push(`edit ${i + 1} (${e.id}): before and after are both null`);
      else edits.push(e as Edit);
    } else {
      const id = (raw as { id?: unknown } | null)?.id;
      badEdits.push(`edit ${i + 1}${typeof id === "string" ? ` (${id})` : ""}: ${problem(edit.issues)}`);
    }
  });
  const revision = { ...head.output, edits } as Revision;
  // Entries written before `updated` existed read as last updated when created.
  for (const e of revision.edits) for (const entry of [e.before, e.after]) fillUpdated(entry);
  return { ok: true, revision, badEdits };
}

/**
 * One entry kept outside the log (a harness export), checked as the log's entries are read: an entry the
 * log would leave out as damaged must not be written into it.
 */
export function checkEntry(raw: unknown): { entry: Entry } | { problem: string } {
  const checked = v.safeParse(ENTRY, raw);
  if (!checked.success) return { problem: problem(checked.issues) };
  const entry = checked.output as Entry;
  fillUpdated(entry);
  return { entry };
}

function fillUpdated(entry: Entry | null): void {
  if (entry && typeof entry.updated !== "string") entry.updated = entry.created;
}
