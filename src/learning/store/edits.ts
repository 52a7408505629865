import { type Current, newEntryId, normaliseText } from "./state.js";
import type { Edit, Entry, Intent, Revision, Scope } from "./types.js";

/**
 * The edit an intent makes to `state`: before and after in full, so a revision can be shown and undone
 * without the log around it. An add equal to an existing entry is dropped with the reason.
 */
export function intentToEdit(
  intent: Intent,
  state: Current,
  now: string,
  scope: Scope,
  revisions: readonly Revision[] = [],
): Edit | { dropped: string } {
  if (intent.op === "add") {
    const text = normaliseText(intent.content);
    for (const [id, { entry, rev }] of state) {
      const named = intent.kind === "skill" || intent.kind === "agent";
      if (
        normaliseText(entry.content) === text ||
        (named && entry.kind === intent.kind && entry.title === intent.title)
      ) {
        const by = revisions.find((r) => r.rev === rev)?.rev ?? rev;
        return { dropped: `an equal entry ${id} is already there${by ? ` (revision ${by})` : ""}` };
      }
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
    return withHypothesis(
      { op: "add", id, before: null, after, evidence: intent.evidence, reason: intent.reason },
      intent,
    );
  }
  const current = state.get(intent.id)?.entry;
  if (!current) return { dropped: `no entry ${intent.id} in the ${scope} scope` };
  if (intent.op === "remove") {
    return withHypothesis(
      {
        op: "remove",
        id: intent.id,
        before: current,
        after: null,
        evidence: intent.evidence,
        reason: intent.reason,
      },
      intent,
    );
  }
  const after: Entry = {
    ...current,
    title: intent.title ?? current.title,
    content: intent.content ?? current.content,
    updated: now,
  };
  if (intent.code !== undefined) after.code = intent.code;
  return withHypothesis(
    {
      op: "update",
      id: intent.id,
      before: current,
      after,
      evidence: intent.evidence,
      reason: intent.reason,
    },
    intent,
  );
}

/** The intent's hypothesis goes with its edit into the revision (absent stays absent: old logs unchanged). */
function withHypothesis(edit: Edit, intent: Intent): Edit {
  return intent.hypothesis ? { ...edit, hypothesis: intent.hypothesis } : edit;
}
