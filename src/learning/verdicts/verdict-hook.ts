// When verdicts run in a session host: after each gate run of an autonomous run, when an autonomous run
// ends, and when the session ends. Each new verdict is journaled in the session that reached it; a
// regression it reverts takes effect in this session at its next compaction (like any harness change).

import type { HookedRoot } from "../../agent/hooks.js";
import { rootContext } from "../store/index.js";
import { type Evaluated, evaluateVerdicts } from "./verdicts.js";

/**
 * Judges the harness edits this session can see and returns what was judged; never fails the session
 * (a verdict can wait).
 */
export function judgeEdits(session: Pick<HookedRoot, "dir" | "cwd" | "home" | "record">): Evaluated[] {
  let results: Evaluated[];
  try {
    results = evaluateVerdicts(rootContext(session), { apply: true });
  } catch {
    // A damaged log or a held lock: `relm harness stats` reports it; the work goes on.
    return [];
  }
  for (const r of results) {
    if (!r.written || r.judgement.verdict === "pending") continue;
    const { reverted, refused, promoted, retired, waiting, pinned, alreadyPromoted: already } = r;
    session.record({
      type: "harness_verdict",
      scope: r.scope,
      rev: r.revision.rev,
      verdict: r.judgement.verdict,
      final: r.judgement.final,
      summary: r.judgement.summary,
      reverted,
      refused,
      ...(r.scope === "probation"
        ? {
            entries: [...new Set(r.revision.edits.map((e) => e.id))],
            promoted,
            retired,
            waiting,
            pinned,
            alreadyPromoted: already && { revision: already.revision, by: already.by },
          }
        : {}),
    });
  }
  return results;
}
