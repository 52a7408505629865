import { type Edit, formatEdits, type Intent } from "../store/index.js";

/** What requireHypotheses reads of a refinement (refine.ts Refinement). */
interface Checked {
  accepted: { index: number; intent: Intent; edit: Edit }[];
  rejected: { index: number; edit: unknown; reason: string }[];
  diff: string;
}

const NO_HYPOTHESIS = 'states no hypothesis: say what the edit should change ("hypothesis")';

/**
 * A refine pass's edits must say what they should change, so the work after them can be judged
 * (docs/harness.md, "Verdicts"): an accepted edit without a hypothesis is moved to the rejected ones.
 * (Learning passes give a default from their trigger instead: src/learning/learn/learn.ts.)
 */
export function requireHypotheses<R extends Checked>(ref: R): R {
  const missing = ref.accepted.filter((a) => !a.intent.hypothesis && !a.edit.hypothesis);
  if (missing.length === 0) return ref;
  const accepted = ref.accepted.filter((a) => !missing.includes(a));
  const rejected = [
    ...ref.rejected,
    ...missing.map((a) => ({ index: a.index, edit: a.intent as unknown, reason: NO_HYPOTHESIS })),
  ].sort((a, b) => a.index - b.index);
  return { ...ref, accepted, rejected, diff: formatEdits(accepted.map((a) => a.edit)) };
}
