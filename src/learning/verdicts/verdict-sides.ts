// Which side of an edit a journaled system prompt is on, what the edit targeted, and which cells used
// it: the per-edit questions a verdict asks of a session's trace.

import { join } from "node:path";
import { JOURNAL_FILE, sessionDir } from "../../session/index.js";
import { sessionProject } from "../probation/carry.js";
import {
  type Edit,
  type Entry,
  type HarnessContext,
  HarnessStore,
  type Revision,
  renderedLine,
  type Scope,
} from "../store/index.js";
import {
  gateSignature,
  projectTraces,
  readTrace,
  type SessionTrace,
  sessionTraces,
} from "./verdict-journal.js";
import type { Side } from "./verdict-units.js";

/** Whether the entry is in the prompt at all (in any version). */
function present(e: Entry, prompt: string): boolean {
  return e.kind === "memory" || e.kind === "prompt"
    ? prompt.includes(`[${e.id}]`)
    : prompt.includes(`- ${e.title}: `);
}

export function editSide(edit: Edit, prompt: string): Side {
  const has = (e: Entry | null) => e !== null && prompt.includes(renderedLine(e));
  switch (edit.op) {
    case "add":
      if (has(edit.after)) return "with";
      return edit.after && present(edit.after, prompt) ? "neither" : "without";
    case "update":
      return has(edit.after) ? "with" : has(edit.before) ? "without" : "neither";
    case "remove":
      if (edit.before && !present(edit.before, prompt)) return "with";
      return has(edit.before) ? "without" : "neither";
  }
}

/** A revision is in force when all its edits are, and absent when none is; anything else is neither. */
export function revisionSide(revision: Pick<Revision, "edits">): (prompt: string) => Side {
  const memo = new Map<string, Side>();
  return (prompt) => {
    let side = memo.get(prompt);
    if (side === undefined) {
      const sides = new Set(revision.edits.map((e) => editSide(e, prompt)));
      side = sides.size === 1 ? ([...sides][0] as Side) : "neither";
      memo.set(prompt, side);
    }
    return side;
  };
}

/** The entries an edit leaves in place (its after, or for a removal nothing). */
function kept(revision: Pick<Revision, "edits">): Entry[] {
  return revision.edits.flatMap((e) => (e.after ? [e.after] : []));
}

/**
 * Whether a cell used an entry of the revision: a memory's or prompt's id cited in its code or in the
 * reply that ran it, a skill imported, a spec started. Removals and standing instructions are in force
 * for every cell, so every cell counts for them.
 */
export function cellUse(revision: Pick<Revision, "edits">): {
  needsUse: boolean;
  uses: (code: string, reply: string) => boolean;
} {
  const entries = kept(revision).filter((e) => e.kind !== "prompt");
  const needsUse = entries.length > 0 && revision.edits.every((e) => e.op !== "remove");
  const tests = entries.map((e) => {
    if (e.kind === "memory") return (code: string, reply: string) => `${code}\n${reply}`.includes(e.id);
    if (e.kind === "skill") {
      const re = new RegExp(`\\b(?:import|from)\\s+${e.title}\\b`);
      return (code: string) => re.test(code);
    }
    return (code: string) => code.includes(`spec="${e.title}"`) || code.includes(`spec='${e.title}'`);
  });
  return { needsUse, uses: (code, reply) => tests.some((t) => t(code, reply)) };
}

/** The session traces a scope's edits can have been in force in. */
export function tracesFor(scope: Scope, ctx: HarnessContext): SessionTrace[] {
  if (scope === "session") {
    if (!ctx.sessionDir) return [];
    const trace = readTrace(join(ctx.sessionDir, JOURNAL_FILE));
    return trace ? [trace] : [];
  }
  // Lessons on probation are the project's candidates: judged on the project's sessions.
  if (scope === "project" || scope === "probation") return projectTraces(ctx.home, ctx.cwd);
  return sessionTraces(ctx.home, () => true);
}

/**
 * The traces a revision of a session's own scope is judged on: that session's, and — when no prompt of
 * that session ever had it in force (it was refined after the session ended, `relm refine ID --apply`,
 * or learnt and delivered as a note before any compaction) but it was carried forward to the project's
 * probation scope — the project's other sessions too. There its copy on probation was in force (their
 * journaled prompts carry the same line), so the session that erred gives the window before and the
 * later sessions that started with the lesson the window after, as for the copy's own verdict.
 */
export function sessionRevisionTraces(
  revision: Revision,
  ctx: HarnessContext,
  side: (prompt: string) => Side,
): SessionTrace[] {
  const own = tracesFor("session", ctx);
  const { sessionDir } = ctx;
  if (!sessionDir) return own;
  const inForce = own.some((t) => t.events.some((e) => e.k === "prompt" && side(e.text) === "with"));
  if (inForce) return own;
  const project = sessionProject({ ...ctx, sessionDir });
  let carried = false;
  try {
    carried = HarnessStore.of("probation", project)
      .revisions()
      .some((r) => r.carried?.rev === revision.rev);
  } catch {
    // An unreadable probation log: judged on its own session, as before it was carried.
  }
  if (!carried) return own;
  const ids = new Set(own.map((t) => t.id));
  return [...own, ...projectTraces(ctx.home, project.cwd).filter((t) => !ids.has(t.id))];
}

/**
 * What the edit targeted: the cell errors and failed gates at its evidence events (a cited cell stands
 * for the output that followed it), as signatures to count repeats of.
 */
export function targetedErrors(revision: Revision, home: string): Set<string> {
  const out = new Set<string>();
  const session = revision.evidence?.session;
  if (!session) return out;
  const cited = new Set([
    ...(revision.evidence?.events ?? []),
    ...revision.edits.flatMap((e) => e.evidence ?? []),
  ]);
  if (cited.size === 0) return out;
  const trace = readTrace(join(sessionDir(home, session), JOURNAL_FILE));
  if (!trace) return out;
  let afterCell = false;
  for (const e of trace.events) {
    if (e.k === "cell") afterCell = cited.has(e.n);
    else if (e.k === "out") {
      if ((cited.has(e.n) || afterCell) && e.error) out.add(e.error);
      afterCell = false;
    } else if (e.k === "gate" && cited.has(e.n) && e.failing) out.add(gateSignature(e.failing));
  }
  return out;
}
