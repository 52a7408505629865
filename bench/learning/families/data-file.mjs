// Trap families: an oddity of the project's data files. The task is always "write the total amount";
// the plain reading of the file gives a wrong total, and only the gate's message says why.
import { csvText, NAMES, readRows, writeOut } from "../kit.mjs";

/** The common shape: a data file made by `make(r, conv)` → {header, rows, expected}, and its total. */
function totalTask(stem, made) {
  const data = `data/${stem}.csv`;
  const out = `out/${stem}.txt`;
  return {
    data,
    out,
    files: { [data]: csvText(made.header, made.rows) },
    expected: made.expected,
    task: `Write the total of the "amount" column of ${data} to ${out}.`,
  };
}

const CHECK_TOTAL = (reveal) => `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    got = num(text.strip())
    if got is not None and abs(got - inst["expected"]) < 1e-6: return []
    return [inst["out"] + ": the total is wrong (" + text.strip()[:40] + ")", ${reveal}]`;

/** Plain solution: every row's amount, summed. */
const plainTotal = (i) =>
  `${readRows(i.data)}total = sum(float(r["amount"]) for r in rows)\ntotal = int(total) if total == int(total) else total\n${writeOut(i.out, 'f"{total}\\n"')}`;
/** A solution that filters or maps rows first (`body` binds `total` from `rows`). */
const withRows = (i, body) =>
  `${readRows(i.data)}${body}\ntotal = int(total) if total == int(total) else total\n${writeOut(i.out, 'f"{total}\\n"')}`;

export const dataFile = [
  {
    id: "disabled-rows",
    category: "data-file oddity",
    title: "rows marked with a prefix are disabled",
    conv: (r) => ({ mark: r.pick(["#", "//", "x-"]) }),
    instance(r, _i, conv, stem) {
      const names = r.sample(NAMES, 9);
      const rows = names.map((n, k) => [k < 3 ? `${conv.mark}${n}` : n, r.int(5, 60)]);
      const live = rows.filter(([n]) => !n.startsWith(conv.mark));
      return totalTask(stem, {
        header: ["name", "amount"],
        rows: r.shuffle(rows),
        expected: live.reduce((s, [, a]) => s + a, 0),
      });
    },
    check: CHECK_TOTAL(
      `"check: rows whose name starts with '%s' are disabled in this project's data files and must be skipped" % conv["mark"]`,
    ),
    naive: plainTotal,
    right: (i, c) =>
      withRows(
        i,
        `total = sum(float(r["amount"]) for r in rows if not r["name"].startswith(${JSON.stringify(c.mark)}))`,
      ),
    key: (c) => `starts with '${c.mark}' are disabled`,
    lesson: (c) =>
      `In this project's data files, rows whose name starts with '${c.mark}' are disabled and must be skipped in every computation.`,
    bad: () => "Every row of a data file counts, whatever its name looks like.",
  },
  {
    id: "summary-row",
    category: "data-file oddity",
    title: "the last row holds the sum",
    conv: (r) => ({ label: r.pick(["TOTAL", "Sum", "ALL"]) }),
    instance(r, _i, conv, stem) {
      const rows = r.sample(NAMES, r.int(5, 8)).map((n) => [n, r.int(5, 60)]);
      const sum = rows.reduce((s, [, a]) => s + a, 0);
      return totalTask(stem, {
        header: ["name", "amount"],
        rows: [...rows, [conv.label, sum]],
        expected: sum,
      });
    },
    check: CHECK_TOTAL(
      `"check: the last row of each data file in this project is a '%s' row holding the sum of the others; leave it out" % conv["label"]`,
    ),
    naive: plainTotal,
    right: (i, c) =>
      withRows(i, `total = sum(float(r["amount"]) for r in rows if r["name"] != ${JSON.stringify(c.label)})`),
    key: (c) => `is a '${c.label}' row holding the sum`,
    lesson: (c) =>
      `The last row of each data file in this project is a '${c.label}' row holding the sum of the others; leave it out of totals.`,
    bad: () => "Data files in this project have no summary rows: every row is data.",
  },
  {
    id: "minor-units",
    category: "data-file oddity",
    title: "amounts are stored in minor units",
    conv: (r) =>
      r.pick([
        { unit: "cents", divisor: 100 },
        { unit: "tenths of a unit", divisor: 10 },
      ]),
    instance(r, _i, conv, stem) {
      const rows = r.sample(NAMES, r.int(5, 8)).map((n) => [n, r.int(100, 990)]);
      return totalTask(stem, {
        header: ["name", "amount"],
        rows,
        expected: rows.reduce((s, [, a]) => s + a, 0) / conv.divisor,
      });
    },
    check: CHECK_TOTAL(
      `"check: amounts in this project's data files are in %s; reports give them in whole units (divide by %d)" % (conv["unit"], conv["divisor"])`,
    ),
    naive: plainTotal,
    right: (i, c) => withRows(i, `total = sum(float(r["amount"]) for r in rows) / ${c.divisor}`),
    key: (c) => `data files are in ${c.unit}`,
    lesson: (c) =>
      `Amounts in this project's data files are in ${c.unit}: divide by ${c.divisor} to report them in whole units.`,
    bad: () => "Amounts in this project's data files are already in whole units: never rescale them.",
  },
  {
    id: "missing-sentinel",
    category: "data-file oddity",
    title: "a sentinel value means missing",
    conv: (r) => ({ missing: r.pick([-1, 9999, -999]) }),
    instance(r, _i, conv, stem) {
      const rows = r.sample(NAMES, r.int(6, 9)).map((n, k) => [n, k < 2 ? conv.missing : r.int(5, 60)]);
      const kept = rows.filter(([, a]) => a !== conv.missing);
      return totalTask(stem, {
        header: ["name", "amount"],
        rows: r.shuffle(rows),
        expected: kept.reduce((s, [, a]) => s + a, 0),
      });
    },
    check: CHECK_TOTAL(
      `"check: an amount of %d in this project's data files means missing; skip those rows" % conv["missing"]`,
    ),
    naive: plainTotal,
    right: (i, c) =>
      withRows(i, `total = sum(float(r["amount"]) for r in rows if int(r["amount"]) != ${c.missing})`),
    key: (c) => `an amount of ${c.missing}`,
    lesson: (c) => `In this project's data files an amount of ${c.missing} means missing: skip those rows.`,
    bad: () => "Missing amounts in data files are empty cells; every number written is a real amount.",
  },
  {
    id: "corrections",
    category: "data-file oddity",
    title: "a repeated id is a correction",
    conv: (r) => ({ keep: r.pick(["last", "first"]) }),
    instance(r, _i, conv, stem) {
      const ids = r.sample([101, 102, 103, 104, 105, 106, 107, 108, 109], 6);
      const rows = ids.map((id) => [id, r.pick(NAMES), r.int(5, 60)]);
      // Two ids appear again with another amount.
      for (const k of [1, 4]) rows.push([rows[k][0], rows[k][1], r.int(61, 90)]);
      const kept = new Map();
      for (const row of rows) if (conv.keep === "last" || !kept.has(row[0])) kept.set(row[0], row[2]);
      return totalTask(stem, {
        header: ["id", "name", "amount"],
        rows,
        expected: [...kept.values()].reduce((s, a) => s + a, 0),
      });
    },
    check: CHECK_TOTAL(
      `"check: rows that repeat an id in this project's data files are corrections; only the %s row for each id counts" % conv["keep"]`,
    ),
    naive: plainTotal,
    right: (i, c) =>
      withRows(
        i,
        `kept = {}\nfor r in rows:\n    if ${c.keep === "last" ? "True" : 'r["id"] not in kept'}: kept[r["id"]] = float(r["amount"])\ntotal = sum(kept.values())`,
      ),
    key: (c) => `only the ${c.keep} row for each id counts`,
    lesson: (c) =>
      `Rows that repeat an id in this project's data files are corrections: only the ${c.keep} row for each id counts.`,
    bad: () => "Every row of a data file counts, even when an id repeats.",
  },
  {
    id: "mixed-units",
    category: "data-file oddity",
    title: "a unit column mixes grams and kilograms",
    conv: (r) => ({ target: r.pick(["kg", "g"]) }),
    instance(r, _i, conv, stem) {
      const rows = r.sample(NAMES, r.int(5, 8)).map((n, k) => [n, r.int(1, 40), k % 2 === 0 ? "kg" : "g"]);
      const grams = rows.reduce((s, [, a, u]) => s + (u === "kg" ? a * 1000 : a), 0);
      return totalTask(stem, {
        header: ["name", "amount", "unit"],
        rows,
        expected: conv.target === "kg" ? grams / 1000 : grams,
      });
    },
    check: CHECK_TOTAL(
      `"check: amounts in this project's data files come with a unit column (g or kg); totals are reported in %s" % conv["target"]`,
    ),
    naive: plainTotal,
    right: (i, c) =>
      withRows(
        i,
        `grams = sum(float(r["amount"]) * (1000 if r["unit"] == "kg" else 1) for r in rows)\ntotal = ${c.target === "kg" ? "grams / 1000" : "grams"}`,
      ),
    key: (c) => `totals are reported in ${c.target}`,
    lesson: (c) =>
      `Amounts in this project's data files come with a unit column (g or kg): convert each row, and totals are reported in ${c.target}.`,
    bad: () => "The unit column of data files is informational only: sum the amounts as written.",
  },
];
