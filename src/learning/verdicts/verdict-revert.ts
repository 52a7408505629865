// A revision undone because of its verdict: a regression (any scope), or a lesson on probation retired
// because it was not shown to help. The revert names the verdict, with the same text in its `verdict` field.

import { HarnessConflictError, type HarnessStore, type Revision, type VerdictNote } from "../store/index.js";

/** Who the revisions that verdicts make (a revert, a promotion from probation) are by, in the log. */
export const VERDICT_AUTHOR = "verdict";

export function revertForVerdict(
  store: HarnessStore,
  revision: Revision,
  options: { reason: string; verdict: VerdictNote },
): { reverted?: string; refused?: string } {
  try {
    const undo = store.revert(revision.rev, { ...options, author: VERDICT_AUTHOR });
    return { reverted: undo.rev };
  } catch (error) {
    // A later revision changed the same entries (undoing this one would overwrite that work), or the
    // scope has no room for what the revert would bring back (HarnessLimitError is a conflict too).
    if (error instanceof HarnessConflictError) return { refused: error.message };
    throw error;
  }
}
