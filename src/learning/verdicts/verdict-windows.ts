// Comparing the work after an edit with the comparable work before it. Pure: units in, a verdict out.
// docs/harness.md ("Verdicts") states these rules in words; keep the two in step.

import type { Judgement, Verdict, WindowSummary, WindowUnit } from "../store/index.js";
import type { Unit } from "./verdict-units.js";

/**
 * Units in each window: attempts (gates) or cells (no gates), and how many of them each window needs
 * before anything is concluded.
 */
export const WINDOW = { attempts: 5, minAttempts: 2, cells: 20, minCells: 4 };

/** A change in the share of attempts reaching green (or of cells failing) smaller than this is noise. */
const RATE_STEP = 0.25;

/**
 * The window before: the last `k` units without the edit that began before it was made. The window
 * after: the first `k` units with it in force (`eligible` narrows them, e.g. to cells that used it).
 */
export function windows<T extends Unit>(
  units: readonly T[],
  madeAt: string,
  k: number,
  eligible: (u: T) => boolean = () => true,
): { before: T[]; after: T[] } {
  const byTime = [...units].sort((a, b) => a.time.localeCompare(b.time) || a.from - b.from);
  const before = byTime.filter((u) => u.side === "without" && u.time < madeAt).slice(-k);
  const after = byTime.filter((u) => u.side === "with" && eligible(u)).slice(0, k);
  return { before, after };
}

export function mean(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

function summarise(units: readonly WindowUnit[]): WindowSummary {
  const green = units.filter((u) => u.ok);
  return {
    units: units.map(({ side: _s, used: _u, ...u }: WindowUnit & { side?: unknown; used?: unknown }) => u),
    ok: green.length,
    turnsToGreen: mean(green.map((u) => u.turns)),
    tokensToGreen: mean(green.map((u) => u.tokens)),
    retries: units.filter((u) => u.retry).length,
    targeted: units.reduce((a, u) => a + u.targeted, 0),
  };
}

export const fixed = (n: number | null) => (n === null ? "–" : n.toFixed(1));
const whole = (n: number | null) => (n === null ? "–" : Math.round(n).toLocaleString("en-US"));

/** Gate runs of a window as evidence: `session#event pass|fail`, grouped by attempt. */
function gateEvidence(units: readonly WindowUnit[]): string {
  if (units.length === 0) return "none";
  return units
    .map(
      (u) =>
        `${u.session}${(u.gateRuns ?? []).map((g) => ` #${g.n} ${g.passed ? "pass" : "fail"}`).join("")}`,
    )
    .join("; ");
}

function cellEvidence(units: readonly WindowUnit[]): string {
  if (units.length === 0) return "none";
  const bySession = new Map<string, string[]>();
  for (const u of units) {
    const list = bySession.get(u.session) ?? [];
    list.push(`#${u.to} ${u.ok ? "ok" : "error"}`);
    bySession.set(u.session, list);
  }
  return [...bySession].map(([s, list]) => `${s} ${list.join(" ")}`).join("; ");
}

/** The verdict of the first rule that holds, in order, and why; neutral when none does. */
function firstRule(rules: [boolean, Verdict, string][]): [Verdict, string] {
  const rule = rules.find(([holds]) => holds);
  return rule ? [rule[1], rule[2]] : ["neutral", "no change beyond the noise thresholds"];
}

const TARGETED_HALVED = "the errors it targeted repeat half as often or less";

/** The errors the edit targeted repeat, per unit, half as often or less after it. */
function targetedHalved(b: WindowSummary, a: WindowSummary, before: number, after: number): boolean {
  return b.targeted > 0 && a.targeted / after <= b.targeted / before / 2;
}

/**
 * With gates. Regressed: the share of attempts reaching green fell by a quarter or more, or (as green
 * as before) turns to green rose by half and by 2 or more. Improved: that share rose by a quarter or more,
 * or (as green as before) turns to green fell by a quarter and by 1 or more, or (nothing else changed)
 * the targeted errors per attempt halved. Pending until each window has `minAttempts`.
 */
export function judgeAttempts(before: readonly Unit[], after: readonly Unit[]): Judgement {
  const b = summarise(before);
  const a = summarise(after);
  const final = after.length >= WINDOW.attempts;
  const rate = (s: WindowSummary, n: number) => (n === 0 ? 0 : s.ok / n);
  const gb = rate(b, before.length);
  const ga = rate(a, after.length);
  const head =
    `gates: green ${b.ok}/${before.length} → ${a.ok}/${after.length} attempts, ` +
    `turns to green ${fixed(b.turnsToGreen)} → ${fixed(a.turnsToGreen)}, ` +
    `tokens to green ${whole(b.tokensToGreen)} → ${whole(a.tokensToGreen)}` +
    (b.targeted + a.targeted > 0 ? `, targeted errors ${b.targeted} → ${a.targeted}` : "");
  const evidence = `gate runs before: ${gateEvidence(b.units)}; after: ${gateEvidence(a.units)}`;
  const [tb, ta] = [b.turnsToGreen, a.turnsToGreen];
  const [verdict, why] = firstRule([
    [
      before.length < WINDOW.minAttempts || after.length < WINDOW.minAttempts,
      "pending",
      `needs ${WINDOW.minAttempts} attempts on each side`,
    ],
    [ga <= gb - RATE_STEP, "regressed", "fewer attempts reached a passing gate"],
    [ga >= gb + RATE_STEP, "improved", "more attempts reached a passing gate"],
    [
      ta !== null && tb !== null && ta >= tb * 1.5 && ta - tb >= 2,
      "regressed",
      "more turns to reach a passing gate",
    ],
    [
      ta !== null && tb !== null && ta <= tb * 0.75 && tb - ta >= 1,
      "improved",
      "fewer turns to reach a passing gate",
    ],
    [targetedHalved(b, a, before.length, after.length), "improved", TARGETED_HALVED],
  ]);
  const summary = `${verdict} (${why}): ${head}; ${evidence}`;
  return { verdict, final, signal: "gates", before: b, after: a, summary };
}

/**
 * Without gates: the error and retry rate of cells. Regressed: the share of failed cells rose by a
 * quarter or more (and by 2 cells or more). Improved: it fell by a quarter or more, or the targeted
 * errors halved. Pending until each window has `minCells`.
 */
export function judgeCells(before: readonly Unit[], after: readonly Unit[]): Judgement {
  const b = summarise(before);
  const a = summarise(after);
  const final = after.length >= WINDOW.cells;
  const failed = (s: WindowSummary, n: number) => n - s.ok;
  const eb = before.length === 0 ? 0 : failed(b, before.length) / before.length;
  const ea = after.length === 0 ? 0 : failed(a, after.length) / after.length;
  const head =
    `cells: failed ${failed(b, before.length)}/${before.length} → ${failed(a, after.length)}/${after.length}, ` +
    `retries ${b.retries} → ${a.retries}` +
    (b.targeted + a.targeted > 0 ? `, targeted errors ${b.targeted} → ${a.targeted}` : "");
  const evidence = `cells before: ${cellEvidence(b.units)}; after: ${cellEvidence(a.units)}`;
  const [verdict, why] = firstRule([
    [
      before.length < WINDOW.minCells || after.length < WINDOW.minCells,
      "pending",
      `needs ${WINDOW.minCells} cells on each side`,
    ],
    [
      ea >= eb + RATE_STEP && failed(a, after.length) - failed(b, before.length) >= 2,
      "regressed",
      "a larger share of cells failed",
    ],
    [ea <= eb - RATE_STEP, "improved", "a smaller share of cells failed"],
    [targetedHalved(b, a, before.length, after.length), "improved", TARGETED_HALVED],
  ]);
  const summary = `${verdict} (${why}): ${head}; ${evidence}`;
  return { verdict, final, signal: "cells", before: b, after: a, summary };
}
