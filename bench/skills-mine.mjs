// Mining repeated chains (relm harness skills --suggest) over a project history: SESSIONS sessions of
// CELLS cells, a quarter of them one repeated 3-cell chain on different files, the rest varied cells.
// Also the worst case: every cell the same shape, so every window of every length repeats.
// The cells are read by Python first (python/relm/skillmine, one process), then the chains are found in
// Node; both are timed. Goal: a few seconds at most for 30 000 cells.
// Run after `npm run build`: node bench/skills-mine.mjs [SESSIONS CELLS]
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ROOT, table } from "./lib.mjs";

const { mineChains } = await import(join(ROOT, "dist/learning/skills/mine-chains.js"));
const { analyseCells } = await import(join(ROOT, "dist/learning/skills/mine-python.js"));
const { findPython } = await import(join(ROOT, "dist/kernel/index.js"));
const python = (await findPython(process.env)).path;

const SESSIONS = Number(process.argv[2] ?? 200);
const CELLS = Number(process.argv[3] ?? 150);

// Cells of many shapes, as real work is: 1-4 statements, each one of several forms and methods.
const METHODS = [
  "read",
  "split",
  "strip",
  "items",
  "keys",
  "append",
  "mean",
  "sum",
  "groupby",
  "sort_values",
];
function varied(seed) {
  let x = seed;
  const next = (n) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x % n;
  };
  const lines = [];
  for (let i = 0, n = 1 + next(4); i < n; i++) {
    const m = METHODS[next(METHODS.length)];
    const forms = [
      `v${i} = data.${m}(${next(100)})`,
      `print(v${i}.${m}(), ${next(9)})`,
      `for r in rows:\n    total += r.${m}`,
      `if len(rows) > ${next(50)}:\n    rows = rows[:${next(20)}]`,
      `result["${m}"] = [x.${m} for x in rows if x]`,
    ];
    lines.push(forms[next(forms.length)]);
  }
  return lines.join("\n");
}

function history(sameShape) {
  const sessions = [];
  for (let s = 0; s < SESSIONS; s++) {
    const cells = [];
    for (let c = 0; c < CELLS; c++) {
      const k = (s * 7919 + c * 104729) % 997;
      let code;
      if (sameShape)
        code = `import json\nv${k} = json.loads(open("f${k}.json").read())\nfor key in v${k}:\n    print(key, v${k}[key] * ${k})\nlen(v${k})`;
      else if (c % 12 === 0) code = `path = "data${s}.txt"\ntext = open(path).read()`;
      else if (c % 12 === 1)
        code = "words = text.split()\ncounts = {}\nfor w in words:\n    counts[w] = counts.get(w, 0) + 1";
      else if (c % 12 === 2) code = "top = sorted(counts.items(), key=lambda kv: -kv[1])[:5]\ntop";
      else code = varied(s * CELLS + c);
      cells.push({ event: c * 3 + 1, code, output: "1\n", ok: true });
    }
    sessions.push({ id: `s${s}`, cwd: "/p", cells });
  }
  return sessions;
}

const rows = [];
for (const [label, sameShape] of [
  ["mixed history", false],
  ["every cell the same shape", true],
]) {
  const sessions = history(sameShape);
  const codes = sessions.flatMap((s) => s.cells.map((c) => c.code));
  const t = performance.now();
  const analysed = await analyseCells(python, codes);
  const read = performance.now() - t;
  const { chains, skipped } = mineChains(sessions, analysed);
  const ms = performance.now() - t - read;
  rows.push({
    history: label,
    cells: SESSIONS * CELLS,
    distinct: analysed.size,
    "read (Python)": `${Math.round(read)} ms`,
    "find chains": `${Math.round(ms)} ms`,
    chains: chains.length,
    skipped: skipped.length,
  });
}
table(rows);
