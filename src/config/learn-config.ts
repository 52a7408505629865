// The `learn` section of config.json: when a running session reviews its own work and keeps lessons
// (docs/harness.md, "Learning on the fly"). Checked when the file is read, so a typo is an error at start
// rather than a policy that silently never fires.

import { ConfigError } from "./errors.js";

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
}

export const LEARN_DEFAULTS: LearnSettings = {
  enabled: false,
  everyTurns: 25,
  atCompaction: true,
  onGateFailure: 2,
  budget: { share: 0.2 },
};

/** The keys of config.json's `learn` object, as the issue and the docs spell them. */
export interface LearnFileSection {
  enabled?: boolean;
  every_turns?: number | false;
  at_compaction?: boolean;
  on_gate_failure?: number | boolean;
  budget?: number | { share?: number; tokens?: number; cost?: number };
  model?: string;
}

const KEYS = ["enabled", "every_turns", "at_compaction", "on_gate_failure", "budget", "model"];

function wholeAtLeast(value: unknown, min: number, where: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new ConfigError(`${where} must be a whole number of ${min} or more, got ${JSON.stringify(value)}`);
  }
  return value;
}

function positive(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(`${where} must be a number above 0, got ${JSON.stringify(value)}`);
  }
  return value;
}

function share(value: unknown, where: string): number {
  const n = positive(value, where);
  if (n > 1) throw new ConfigError(`${where} is a fraction of the session's limits: above 0, at most 1`);
  return n;
}

function budgetOf(raw: unknown, where: string): LearnBudget {
  if (typeof raw === "number") return { share: share(raw, where) };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ConfigError(`${where} must be a fraction, or an object with share, tokens and/or cost`);
  }
  const b = raw as Record<string, unknown>;
  const unknown = Object.keys(b).filter((k) => !["share", "tokens", "cost"].includes(k));
  if (unknown.length > 0)
    throw new ConfigError(`${where}: unknown field(s) ${unknown.join(", ")}; known: share, tokens, cost`);
  return {
    share: b.share === undefined ? LEARN_DEFAULTS.budget.share : share(b.share, `${where}.share`),
    ...(b.tokens !== undefined ? { tokens: wholeAtLeast(b.tokens, 1, `${where}.tokens`) } : {}),
    ...(b.cost !== undefined ? { cost: positive(b.cost, `${where}.cost`) } : {}),
  };
}

/** config.json's `learn` (absent: the defaults), checked; `where` names the file for errors. */
export function parseLearnSection(raw: unknown, where: string): LearnSettings {
  if (raw === undefined) return { ...LEARN_DEFAULTS, budget: { ...LEARN_DEFAULTS.budget } };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ConfigError(`${where} must be an object`);
  const r = raw as Record<string, unknown>;
  const unknown = Object.keys(r).filter((k) => !KEYS.includes(k));
  if (unknown.length > 0)
    throw new ConfigError(
      `${where}: unknown field(s) ${unknown.join(", ")}; known fields: ${KEYS.join(", ")}`,
    );
  const bool = (key: string, fallback: boolean): boolean => {
    const v = r[key];
    if (v === undefined) return fallback;
    if (typeof v !== "boolean") throw new ConfigError(`${where}.${key} must be true or false`);
    return v;
  };
  const everyTurns =
    r.every_turns === undefined
      ? LEARN_DEFAULTS.everyTurns
      : r.every_turns === false
        ? 0
        : wholeAtLeast(r.every_turns, 0, `${where}.every_turns`);
  // Once is no pattern: "the same gate failed twice" is the least that says the agent is stuck.
  const gate = r.on_gate_failure;
  const onGateFailure =
    gate === undefined || gate === true
      ? LEARN_DEFAULTS.onGateFailure
      : gate === false || gate === 0
        ? 0
        : wholeAtLeast(gate, 2, `${where}.on_gate_failure`);
  if (r.model !== undefined && (typeof r.model !== "string" || r.model.trim() === ""))
    throw new ConfigError(`${where}.model must be a model name`);
  return {
    enabled: bool("enabled", LEARN_DEFAULTS.enabled),
    everyTurns,
    atCompaction: bool("at_compaction", LEARN_DEFAULTS.atCompaction),
    onGateFailure,
    budget: r.budget === undefined ? { ...LEARN_DEFAULTS.budget } : budgetOf(r.budget, `${where}.budget`),
    ...(typeof r.model === "string" ? { model: r.model.trim() } : {}),
  };
}
