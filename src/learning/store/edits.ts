import { type Current, newEntryId, sameLesson } from "./state.js";
import type { Edit, Entry, Intent, Scope } from "./types.js";

/**
 * The edit an intent makes to `state`: before and after in full, so a revision can be shown and undone
 * without the log around it. An add equal to an existing entry is dropped with the reason.
 */
export function intentToEdit(
  intent: Intent,
  state: Current,
  now: string,
  scope: Scope,
): Edit | { dropped: string } {
  // The intent's hypothesis goes with its edit into the revision (absent stays absent: old logs unchanged).
  const why = {
    evidence: intent.evidence,
    reason: intent.reason,
    ...(intent.hypothesis ? { hypothesis: intent.hypothesis } : {}),
  };
  if (intent.op === "add") {
    for (const [id, { entry, rev }] of state) {
      if (sameLesson(entry, intent))
        return { dropped: `an equal entry ${id} is already there${rev ? ` (revision ${rev})` : ""}` };
    }
    const id = intent.id ?? newEntryId(intent.kind);
    if (state.has(id)) return { dropped: `entry ${id} already exists in the ${scope} scope` };
    const after: Entry = {
      id,
      kind: intent.kind,
      title: intent.title,
      content: intent.content,
      source: intent.source,
      created: intent.created ?? now,
      updated: now,
    };
    if (intent.code !== undefined) after.code = intent.code;
    return { op: "add", id, before: null, after, ...why };
  }
  const current = state.get(intent.id)?.entry;
  if (!current) return { dropped: `no entry ${intent.id} in the ${scope} scope` };
  if (intent.op === "remove") return { op: "remove", id: intent.id, before: current, after: null, ...why };
  const after: Entry = {
    ...current,
    title: intent.title ?? current.title,
    content: intent.content ?? current.content,
    updated: now,
  };
  if (intent.code !== undefined) after.code = intent.code;
  return { op: "update", id: intent.id, before: current, after, ...why };
}

/** An add that copies `entry` into another scope: same id, creation time and code. */
export function copyOf(entry: Entry): Extract<Intent, { op: "add" }> {
  const { id, kind, title, content, source, created, code } = entry;
  return { op: "add", id, kind, title, content, source, created, code };
}
