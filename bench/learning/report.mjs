// The bench's summary as Markdown tables (the same text docs/learning.md quotes).

const fixed = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "–");
const pct = (x) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)}%` : "–");
const withCi = (b, f = fixed) => (b ? `${f(b.value)} [${f(b.lo)}, ${f(b.hi)}]` : "–");
const signed = (x) => (Number.isFinite(x) ? `${x >= 0 ? "+" : ""}${x.toFixed(2)}` : "–");

function table(header, rows) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

export function markdown(summary, meta) {
  const out = [];
  out.push(
    `${summary.units} units (family × seed), ${meta.families} families, seeds ${meta.seeds.join(", ")}; model ${meta.model}` +
      (meta.scripted ? ` (stubborn ${meta.stubborn}, doubt ${meta.doubt})` : "") +
      `; budget per session --max-turns ${meta.budget.turns}, --max-gate-failures ${meta.budget.gateFailures}` +
      `${meta.budget.time ? `, --max-time ${meta.budget.time}` : ""}; ${meta.resamples} bootstrap resamples; wall ${(meta.elapsedMs / 60000).toFixed(1)} min.`,
    "",
  );
  out.push(
    table(
      [
        "condition",
        "held-out pass",
        "held-out turns",
        "Δ turns vs none [95% CI]",
        "held-out tokens",
        "gap recovered, turns [95% CI]",
        "gap recovered, tokens",
        "turns / tokens after 1st repeated failure",
        "repeats after the lesson",
        "held-out 1st request had the lesson",
        "learning's token share",
        "control regressions",
      ],
      summary.rows.map((r) => [
        r.condition,
        pct(r.heldPass.value),
        fixed(r.heldTurns.value),
        r.deltaTurns
          ? `${signed(r.deltaTurns.value)} [${signed(r.deltaTurns.lo)}, ${signed(r.deltaTurns.hi)}]`
          : "–",
        fixed(r.heldTokens.value, 0),
        r.gapTurns ? withCi(r.gapTurns) : r.condition === "expert" ? "1 (by definition)" : "–",
        r.gapTokens ? fixed(r.gapTokens.value) : "–",
        `${fixed(r.turnsAfterRepeat)} / ${fixed(r.tokensAfterRepeat, 0)}`,
        r.sessionsWithLesson ? `${r.repeatsAfterLesson} in ${r.sessionsWithLesson} sessions` : "–",
        `${r.heldLessonFirst}/${r.held}`,
        pct(r.learningShare),
        r.condition === "none"
          ? `(${r.controlsGreen}/${r.units} green)`
          : `${r.controlRegressions}/${r.units}`,
      ]),
    ),
  );
  const cats = Object.entries(summary.byCategory);
  if (cats.length) {
    const conds = summary.rows.map((r) => r.condition);
    out.push("", "Held-out turns by kind of trap:", "");
    out.push(
      table(
        ["trap", ...conds],
        cats.map(([cat, by]) => [cat, ...conds.map((c) => fixed(by[c]))]),
      ),
    );
  }
  const o = summary.offline;
  if (o) {
    const refusals = Object.entries(o.refusals)
      .map(([why, n]) => `${n} ${why}`)
      .join(", ");
    out.push(
      "",
      `Offline pipeline (refine condition): ${o.refines} refines kept ${o.kept} lessons; verify passed ${o.verified}; ` +
        `promote took ${o.promoted}${refusals ? ` and refused ${o.kept - o.promoted} (${refusals})` : ""}; ${o.imported} imported to the project instead.`,
    );
  }
  const v = summary.revert;
  if (v) {
    const verdicts = (x) =>
      Object.entries(x.verdicts)
        .map(([k, n]) => `${n} ${k}`)
        .join(", ");
    out.push(
      "",
      "Auto-revert with injected lessons (added to the project scope by hand after instance 2):",
      "",
    );
    out.push(
      table(
        ["injected", "tracks", "verdicts", "reverted"],
        [
          ["bad lesson", v.bad.tracks, verdicts(v.bad), v.bad.reverted],
          ["expert lesson", v.good.tracks, verdicts(v.good), v.good.reverted],
        ],
      ),
      "",
      `Precision (reverted edits that were bad): ${withCi(v.precision)}; recall (bad edits reverted): ${withCi(v.recall)}.`,
    );
  }
  return `${out.join("\n")}\n`;
}
