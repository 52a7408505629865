// The `learn` section of config.json: when a running session reviews its own work and keeps lessons
// (docs/harness.md, "Learning on the fly"). Checked when the file is read, so a typo is an error at start
// rather than a policy that silently never fires.

import { checkConfig, learnSectionSchema } from "./schema.js";

/** Learning's own share of a session's spend. */
export interface LearnBudget {
  /** At most this fraction (0–1] of each session limit that is set (--max-tokens, --max-cost). */
  share: number;
  /** At most this many input + output tokens over all passes of a session. */
  tokens?: number;
  /** At most this many US dollars over all passes of a session. */
  cost?: number;
}

/** The online-refinement policy, as config.json sets it (defaults filled in). */
export interface LearnSettings {
  /** On in every session without --learn. */
  enabled: boolean;
  /** A pass after this many model calls since the last pass; 0: never by count. */
  everyTurns: number;
  /** A pass whenever a compaction rebuilds the prompt. */
  atCompaction: boolean;
  /** A pass when the same gate failed this many times in a row the same way; 0: never. */
  onGateFailure: number;
  budget: LearnBudget;
  /** The model passes use; else refineModel, else the session's own model. */
  model?: string;
  /**
   * The share (0–1) of what is left of each session limit that a background replay check of an improved
   * lesson may spend (docs/harness.md, "Verify before promotion"); 0: never run one.
   */
  verifyShare: number;
}

export const LEARN_DEFAULTS: LearnSettings = {
  enabled: false,
  everyTurns: 25,
  atCompaction: true,
  onGateFailure: 2,
  budget: { share: 0.2 },
  verifyShare: 0.2,
};

/** config.json's `learn` (absent: the defaults), checked; `where` names the file and section for errors. */
export function parseLearnSection(raw: unknown, where: string): LearnSettings {
  if (raw === undefined) return { ...LEARN_DEFAULTS, budget: { ...LEARN_DEFAULTS.budget } };
  const r = checkConfig(learnSectionSchema, raw, where);
  // Once is no pattern: "the same gate failed twice" is the least that says the agent is stuck.
  const gate = r.on_gate_failure;
  const onGateFailure =
    gate === undefined || gate === true ? LEARN_DEFAULTS.onGateFailure : gate === false ? 0 : gate;
  const budget: LearnBudget =
    r.budget === undefined
      ? { ...LEARN_DEFAULTS.budget }
      : typeof r.budget === "number"
        ? { share: r.budget }
        : { ...r.budget, share: r.budget.share ?? LEARN_DEFAULTS.budget.share };
  return {
    enabled: r.enabled ?? LEARN_DEFAULTS.enabled,
    everyTurns:
      r.every_turns === undefined ? LEARN_DEFAULTS.everyTurns : r.every_turns === false ? 0 : r.every_turns,
    atCompaction: r.at_compaction ?? LEARN_DEFAULTS.atCompaction,
    onGateFailure,
    budget,
    model: r.model?.trim(),
    verifyShare: r.verify_share ?? LEARN_DEFAULTS.verifyShare,
  };
}
