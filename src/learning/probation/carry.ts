// Lessons carried forward (docs/harness.md, "Probation"): what a refinement applies to a session's own
// scope is also written, as one revision, to its project's probation scope, so the project's next sessions
// start with it, marked as unproven, until its verdict promotes it to the project scope or retires it.

import { basename, join } from "node:path";
import { JOURNAL_FILE, readHeaderAndTail } from "../../session/index.js";
import {
  copyOf,
  entriesOf,
  type HarnessContext,
  HarnessStore,
  type Intent,
  type Revision,
  sameLesson,
} from "../store/index.js";

/**
 * The harness context of the project a session worked in: its journal's working directory (a command
 * run elsewhere, `relm refine ID`, still carries to the session's own project).
 */
export function sessionProject(ctx: HarnessContext & { sessionDir: string }): HarnessContext {
  try {
    const { cwd } = readHeaderAndTail(join(ctx.sessionDir, JOURNAL_FILE), 1).header;
    return { cwd, home: ctx.home };
  } catch {
    return { cwd: ctx.cwd, home: ctx.home };
  }
}

/**
 * Writes the refine-made edits of `revision` (a revision of the session scope of `ctx.sessionDir`) to the
 * project's probation scope: same entry ids, hypotheses and evidence. A lesson the project or user scope
 * already has (same id or same text) is left out. Returns the probation revision, if one was written;
 * never throws (carrying forward must not undo the session's own apply).
 */
export function carryForward(
  revision: Revision,
  ctx: HarnessContext & { sessionDir: string },
): Revision | undefined {
  try {
    const session = revision.evidence?.session ?? revision.trajectory?.session ?? basename(ctx.sessionDir);
    const project = sessionProject(ctx);
    const store = HarnessStore.of("probation", project);
    const kept = (["project", "user"] as const).flatMap((s) =>
      entriesOf(HarnessStore.of(s, project).state()),
    );
    const state = store.state();
    const intents: Intent[] = [];
    for (const edit of revision.edits) {
      const entry = edit.after ?? edit.before;
      if (entry?.source !== "refine") continue;
      const said = {
        ...(edit.evidence ? { evidence: edit.evidence } : {}),
        ...(edit.reason ? { reason: edit.reason } : {}),
        ...(edit.hypothesis ? { hypothesis: edit.hypothesis } : {}),
      };
      const onProbation = state.get(entry.id)?.entry;
      if (!edit.after) {
        if (onProbation) intents.push({ op: "remove", id: entry.id, ...said });
        continue;
      }
      const after = edit.after;
      if (onProbation) {
        if (onProbation.content !== after.content || onProbation.title !== after.title)
          intents.push({ op: "update", id: after.id, title: after.title, content: after.content, ...said });
        continue;
      }
      if (kept.some((e) => e.id === after.id || sameLesson(e, after))) continue;
      intents.push({ ...copyOf(after), ...said });
    }
    if (intents.length === 0) return undefined;
    return store.commit({
      intents,
      author: `learn ${session}`,
      reason: `carried forward from session ${session} (revision ${revision.rev}): on probation in this project's next sessions`,
      evidence: revision.evidence,
      trajectory: revision.trajectory,
      carried: { session, rev: revision.rev },
      // Learnt when the session learnt it: the work before that is the window before.
      now: new Date(revision.time),
    }).revision;
  } catch {
    // A held lock or a damaged probation log: the lesson stays in its session; `relm harness list` shows why.
    return undefined;
  }
}

/** The probation revisions that carry `rev` (a session-scope revision) forward, not yet reverted. */
export function carriedFrom(store: HarnessStore, rev: string): Revision[] {
  const revisions = store.revisions();
  const undone = new Set(revisions.flatMap((r) => (r.revert ? [r.revert] : [])));
  return revisions.filter((r) => r.carried?.rev === rev && !undone.has(r.rev));
}
