// Per-entry outcomes for `relm harness stats`: how the work went while each entry (as it is now) was in
// the prompt — attempts at a passing gate and how many turns they took, and the cells that used it.

import type { EntryState, HarnessContext, Revision, Scope } from "../store/index.js";
import type { SessionTrace } from "./verdict-journal.js";
import { cellUse, revisionSide, tracesFor } from "./verdict-sides.js";
import { attemptsOf, cellsOf } from "./verdict-units.js";
import { mean } from "./verdict-windows.js";

export interface EntryOutcome {
  /** Attempts at a passing gate run made with the entry in the prompt, and how many got there. */
  attempts: number;
  green: number;
  turnsToGreen: number | null;
  tokensToGreen: number | null;
  /** Cells that used it (every cell while it was in force, for prompts), and how many failed. */
  cells: number;
  failedCells: number;
  /** Sessions it was in force in, and their ids (oldest first). */
  sessions: number;
  sessionIds: string[];
}

/** The entry as the edits of a revision that added its current version (what sides and uses read). */
function asRevision(entry: EntryState): Pick<Revision, "edits"> {
  const { scope: _s, rev: _r, uses: _u, ...plain } = entry;
  return { edits: [{ op: "add", id: entry.id, before: null, after: plain }] };
}

export function entryOutcomes(
  ctx: HarnessContext,
  entries: readonly EntryState[],
): Map<string, EntryOutcome> {
  const traces = new Map<Scope, SessionTrace[]>();
  const out = new Map<string, EntryOutcome>();
  for (const entry of entries) {
    let scoped = traces.get(entry.scope);
    if (!scoped) {
      scoped = tracesFor(entry.scope, ctx);
      traces.set(entry.scope, scoped);
    }
    const revision = asRevision(entry);
    const side = revisionSide(revision);
    const use = cellUse(revision);
    const options = { side, targeted: new Set<string>() };
    const attempts = scoped.flatMap((t) => attemptsOf(t, options)).filter((a) => a.side === "with");
    const cells = scoped
      .flatMap((t) => cellsOf(t, { ...options, uses: use.uses }))
      .filter((c) => c.side === "with" && (!use.needsUse || c.used));
    const green = attempts.filter((a) => a.ok);
    const active = scoped.filter((t) => t.events.some((e) => e.k === "prompt" && side(e.text) === "with"));
    out.set(entry.id, {
      attempts: attempts.length,
      green: green.length,
      turnsToGreen: mean(green.map((a) => a.turns)),
      tokensToGreen: mean(green.map((a) => a.tokens)),
      cells: cells.length,
      failedCells: cells.filter((c) => !c.ok).length,
      sessions: active.length,
      sessionIds: active.map((t) => t.id),
    });
  }
  return out;
}
