// A revision applied mid-session as the lesson the agents of the session read at once (src/agent/
// lessons.ts): its entries rendered as the harness block renders them, and the events it came from.

import { basename } from "node:path";
import type { Lesson } from "../../agent/hooks.js";
import {
  type Edit,
  type HarnessContext,
  loadHarness,
  type Revision,
  renderedLine,
  type Scope,
} from "../store/index.js";

function editLine(edit: Edit): string | null {
  if (edit.after) return renderedLine(edit.after);
  return edit.before && `- no longer in force: ${renderedLine(edit.before).replace(/^- /, "")}`;
}

/** The lesson a revision of `scope` teaches; undefined when it changes no entry. */
function lessonOf(revision: Revision, scope: Scope, fallbackSession: string): Lesson | undefined {
  const lines = revision.edits.flatMap((e) => editLine(e) ?? []);
  if (lines.length === 0) return undefined;
  const cited = revision.edits.flatMap((e) => e.evidence ?? []);
  const trajectory = revision.trajectory;
  const events =
    cited.length > 0
      ? { from: Math.min(...cited), to: Math.max(...cited) }
      : trajectory && trajectory.to > 0
        ? { from: trajectory.from, to: trajectory.to }
        : null;
  return {
    text: lines.join("\n"),
    revision: revision.rev,
    scope,
    entries: revision.edits.map((e) => e.id),
    session: revision.evidence?.session ?? trajectory?.session ?? fallbackSession,
    events,
  };
}

/**
 * Hands what `revision` applied to every running agent of the tree (the ids it reached), and renews the
 * prompt section agents started from now on get (`ctx`: the root session's harness), so they read it
 * in their system prompt instead.
 */
export function teachTree(
  tree: { lessons: { teach(lesson: Lesson): string[] }; promptSection: string | undefined },
  revision: Revision,
  scope: Scope,
  ctx: HarnessContext & { sessionDir: string },
): string[] {
  try {
    tree.promptSection = loadHarness(ctx).block;
  } catch {
    // A harness file that no longer reads (written meanwhile): new agents keep the section they had.
  }
  const lesson = lessonOf(revision, scope, basename(ctx.sessionDir));
  return lesson ? tree.lessons.teach(lesson) : [];
}
