// The bench's figures from its tracks: per unit (a family's project for one seed) and condition, then
// means over units with paired bootstrap intervals (units resampled with replacement; every condition's
// value for a unit moves together, so a difference is measured on the same instances).
import { rng } from "./kit.mjs";

const mean = (xs) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : Number.NaN);
const sum = (xs) => xs.reduce((s, x) => s + x, 0);

/** One track's figures (a unit under a condition). */
export function trackFigures(track) {
  const held = track.sessions.filter((s) => s.role === "held-out");
  const instances = track.sessions.filter((s) => s.role !== "control");
  const control = track.sessions.find((s) => s.role === "control");
  const withLesson = instances.filter((s) => s.repeatsAfterLesson !== null);
  const sessionTokens = sum(track.sessions.map((s) => s.tokens));
  const offline = sum(track.learning.map((l) => (l.refineTokens ?? 0) + (l.verifyTokens ?? 0)));
  const learning = sum(track.sessions.map((s) => s.learnTokens)) + offline;
  return {
    heldPass: mean(held.map((s) => (s.green ? 1 : 0))),
    heldTurns: mean(held.map((s) => s.turns)),
    heldTokens: mean(held.map((s) => s.tokens)),
    turnsAfterRepeat: mean(instances.map((s) => s.turnsAfterRepeat)),
    tokensAfterRepeat: mean(instances.map((s) => s.tokensAfterRepeat)),
    repeated: instances.filter((s) => s.repeated).length,
    repeatsAfterLesson: sum(withLesson.map((s) => s.repeatsAfterLesson)),
    sessionsWithLesson: withLesson.length,
    heldLessonFirst: held.filter((s) => s.lessonInFirstRequest).length,
    held: held.length,
    learningShare: learning / (sessionTokens + offline),
    learningTokens: learning,
    totalTokens: sessionTokens + offline,
    controlGreen: control?.green ?? false,
    controlTurns: control?.turns ?? Number.NaN,
  };
}

/** Percentile interval of `stat` over `n` bootstrap resamples of `units` (seeded: the same on every run). */
export function bootstrap(units, stat, { n = 2000, seed = "bootstrap", level = 0.95 } = {}) {
  if (units.length === 0) return { value: Number.NaN, lo: Number.NaN, hi: Number.NaN };
  const r = rng(seed);
  const values = [];
  for (let b = 0; b < n; b++) {
    const sample = Array.from({ length: units.length }, () => units[Math.floor(r.next() * units.length)]);
    const v = stat(sample);
    if (Number.isFinite(v)) values.push(v);
  }
  values.sort((a, b) => a - b);
  const at = (q) => values[Math.min(values.length - 1, Math.max(0, Math.floor(q * values.length)))];
  const tail = (1 - level) / 2;
  return {
    value: stat(units),
    lo: values.length ? at(tail) : Number.NaN,
    hi: values.length ? at(1 - tail) : Number.NaN,
  };
}

/**
 * Summary over units: per condition the means, the paired differences to `none` with intervals, the
 * gap recovered (X − none) / (expert − none) on held-out turns and tokens, control regressions, and
 * the auto-revert figures of the inject tracks.
 */
export function summarize(tracks, { resamples = 2000 } = {}) {
  const unitKey = (t) => `${t.family}#${t.seed}`;
  const units = new Map();
  for (const t of tracks) {
    const u = units.get(unitKey(t)) ?? { family: t.family, category: t.category, seed: t.seed, by: {} };
    u.by[t.condition] = { ...trackFigures(t), track: t };
    units.set(unitKey(t), u);
  }
  const all = [...units.values()];
  const order = ["none", "learn", "refine", "expert"];
  const conditions = order.filter((c) => tracks.some((t) => t.condition === c));
  const boot = (list, stat, name) => bootstrap(list, stat, { n: resamples, seed: name });
  const figure = (c, f) => (list) => mean(list.filter((u) => u.by[c]).map((u) => u.by[c][f]));
  const paired = (c, f) => (list) =>
    mean(list.filter((u) => u.by[c] && u.by.none).map((u) => u.by[c][f] - u.by.none[f]));
  /** (X − none) / (expert − none), as a ratio of means over the same units (lower turns are better: both negative). */
  const gap = (c, f) => (list) => {
    const both = list.filter((u) => u.by[c] && u.by.none && u.by.expert);
    const num = mean(both.map((u) => u.by[c][f] - u.by.none[f]));
    const den = mean(both.map((u) => u.by.expert[f] - u.by.none[f]));
    return den === 0 ? Number.NaN : num / den;
  };
  const rows = conditions.map((c) => {
    const mine = all.filter((u) => u.by[c]);
    const f = (name) => mean(mine.map((u) => u.by[c][name]));
    const s = (name) => sum(mine.map((u) => u.by[c][name]));
    const row = {
      condition: c,
      units: mine.length,
      heldPass: boot(mine, figure(c, "heldPass"), `${c} pass`),
      heldTurns: boot(mine, figure(c, "heldTurns"), `${c} turns`),
      heldTokens: boot(mine, figure(c, "heldTokens"), `${c} tokens`),
      turnsAfterRepeat: f("turnsAfterRepeat"),
      tokensAfterRepeat: f("tokensAfterRepeat"),
      repeated: s("repeated"),
      repeatsAfterLesson: s("repeatsAfterLesson"),
      sessionsWithLesson: s("sessionsWithLesson"),
      heldLessonFirst: s("heldLessonFirst"),
      held: s("held"),
      learningShare: s("learningTokens") / s("totalTokens"),
      controlsGreen: mine.filter((u) => u.by[c].controlGreen).length,
      controlRegressions: mine.filter(
        (u) =>
          u.by.none?.controlGreen && (!u.by[c].controlGreen || u.by[c].controlTurns > u.by.none.controlTurns),
      ).length,
    };
    if (c !== "none" && all.some((u) => u.by.none)) {
      row.deltaTurns = boot(mine, paired(c, "heldTurns"), `${c} dturns`);
      row.deltaPass = boot(mine, paired(c, "heldPass"), `${c} dpass`);
    }
    if (c !== "none" && c !== "expert" && all.some((u) => u.by.none && u.by.expert)) {
      row.gapTurns = boot(mine, gap(c, "heldTurns"), `${c} gap turns`);
      row.gapTokens = boot(mine, gap(c, "heldTokens"), `${c} gap tokens`);
    }
    return row;
  });
  const byCategory = {};
  for (const u of all) {
    for (const c of conditions) {
      if (!u.by[c]) continue;
      byCategory[u.category] = byCategory[u.category] ?? {};
      const cell = byCategory[u.category];
      cell[c] = [...(cell[c] ?? []), u.by[c].heldTurns];
    }
  }
  for (const cat of Object.values(byCategory)) for (const c of Object.keys(cat)) cat[c] = mean(cat[c]);
  return {
    units: all.length,
    rows,
    byCategory,
    revert: revertFigures(tracks, resamples),
    offline: offlineFigures(tracks),
  };
}

/** Auto-revert: of the injected edits that were reverted, how many were the bad ones (precision), and how many bad ones were (recall). */
function revertFigures(tracks, resamples) {
  const inj = tracks.filter((t) => t.inject);
  if (inj.length === 0) return undefined;
  const bad = inj.filter((t) => t.condition === "inject-bad");
  const good = inj.filter((t) => t.condition === "inject-good");
  const verdicts = (list) => {
    const out = {};
    for (const t of list) out[t.inject.verdict] = (out[t.inject.verdict] ?? 0) + 1;
    return out;
  };
  const precision = (list) => {
    const reverted = list.filter((t) => t.inject.reverted);
    return reverted.length
      ? reverted.filter((t) => t.condition === "inject-bad").length / reverted.length
      : Number.NaN;
  };
  const recall = (list) => {
    const b = list.filter((t) => t.condition === "inject-bad");
    return b.length ? b.filter((t) => t.inject.reverted).length / b.length : Number.NaN;
  };
  return {
    bad: {
      tracks: bad.length,
      reverted: bad.filter((t) => t.inject.reverted).length,
      verdicts: verdicts(bad),
    },
    good: {
      tracks: good.length,
      reverted: good.filter((t) => t.inject.reverted).length,
      verdicts: verdicts(good),
    },
    precision: bootstrap(inj, precision, { n: resamples, seed: "precision" }),
    recall: bootstrap(inj, recall, { n: resamples, seed: "recall" }),
  };
}

/** The offline pipeline's steps: refine kept a lesson, verify passed, promote took it or refused it. */
function offlineFigures(tracks) {
  const steps = tracks.filter((t) => t.condition === "refine").flatMap((t) => t.learning);
  if (steps.length === 0) return undefined;
  const refusals = {};
  for (const s of steps.filter((s) => s.rev && !s.promoted)) {
    const text = s.promote ?? "";
    const why =
      /helped: (\w+)/.exec(text)?.[1] ??
      (text.includes("replay check") ? "no passing verify" : text.replace(/^relm: /, "").slice(0, 60));
    refusals[why] = (refusals[why] ?? 0) + 1;
  }
  return {
    refines: steps.length,
    kept: steps.filter((s) => s.rev).length,
    verified: steps.filter((s) => s.verify?.passed).length,
    promoted: steps.filter((s) => s.promoted).length,
    imported: steps.filter((s) => s.imported).length,
    refusals,
  };
}
