// Trap families: a hidden convention about how an output file is written. The task says what to compute;
// only the gate's message says how the project wants it written.
import { amountRows, CATEGORIES, csvText, py, pyFloat, REGIONS, readRows, writeOut } from "../kit.mjs";

/** The common instance: a (name, amount) data file and one output file. */
function amounts(r, stem, ext = "txt", n = r.int(6, 10)) {
  const rows = amountRows(r, n);
  return {
    rows,
    data: `data/${stem}.csv`,
    out: `out/${stem}.${ext}`,
    files: { [`data/${stem}.csv`]: csvText(["name", "amount"], rows) },
  };
}
const total = (rows) => rows.reduce((s, [, a]) => s + a, 0);

export const outputFormat = [
  {
    id: "trailer-line",
    category: "output format",
    title: "reports end with a trailer line",
    conv: (r) => ({ trailer: r.pick(["#END-OF-REPORT", "=== report ends ===", "~~ eof ~~"]) }),
    instance(r, _i, _conv, stem) {
      const it = amounts(r, stem);
      return {
        ...it,
        expected: total(it.rows),
        task: `Write the sum of the "amount" column of ${it.data} to ${it.out}.`,
      };
    },
    check: `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines or num(lines[0]) != inst["expected"]: return [inst["out"] + ": the first line is not the right total"]
    if lines[-1].strip() != conv["trailer"]:
        return [inst["out"] + ": the report has no trailer line", "check: every report in this project ends with the line '" + conv["trailer"] + "'"]
    return []`,
    naive: (i) =>
      `${readRows(i.data)}total = sum(int(r["amount"]) for r in rows)\n${writeOut(i.out, 'f"{total}\\n"')}`,
    right: (i, c) =>
      `${readRows(i.data)}total = sum(int(r["amount"]) for r in rows)\n${writeOut(i.out, `f"{total}\\n" + ${py(c.trailer)} + "\\n"`)}`,
    key: (c) => `ends with the line '${c.trailer}'`,
    lesson: (c) =>
      `Every report this project writes (files under out/) ends with the line '${c.trailer}' after the content; the gate rejects reports without it.`,
    bad: () => "Reports under out/ hold the number alone: never add header or footer lines to them.",
  },
  {
    id: "fixed-decimals",
    category: "output format",
    title: "numbers have a fixed number of decimals",
    conv: (r) => ({ places: r.pick([3, 4]) }),
    instance(r, _i, conv, stem) {
      // Data whose mean Python would print with some other number of decimals, so the plain answer fails.
      for (;;) {
        const it = amounts(r, stem);
        const mean = total(it.rows) / it.rows.length;
        const decimals = (pyFloat(mean).split(".")[1] ?? "").length;
        if (decimals !== conv.places)
          return {
            ...it,
            expected: mean,
            task: `Write the mean of the "amount" column of ${it.data} to ${it.out}.`,
          };
      }
    },
    check: `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    t = text.strip()
    if num(t) is None or abs(num(t) - inst["expected"]) > 10 ** -conv["places"]: return [inst["out"] + ": the mean is wrong"]
    if not re.fullmatch(r"-?\\d+\\.\\d{%d}" % conv["places"], t):
        return [inst["out"] + ": " + repr(t) + " is not written the project's way", "check: numbers in this project's reports have exactly %d decimal places" % conv["places"]]
    return []`,
    naive: (i) =>
      `${readRows(i.data)}mean = sum(int(r["amount"]) for r in rows) / len(rows)\n${writeOut(i.out, 'f"{mean}\\n"')}`,
    right: (i, c) =>
      `${readRows(i.data)}mean = sum(int(r["amount"]) for r in rows) / len(rows)\n${writeOut(i.out, `f"{mean:.${c.places}f}\\n"`)}`,
    key: (c) => `exactly ${c.places} decimal places`,
    lesson: (c) =>
      `Numbers in this project's reports are written with exactly ${c.places} decimal places (f"{x:.${c.places}f}"), even whole ones.`,
    bad: () => "Numbers in reports are written rounded to whole numbers, with no decimal places.",
  },
  {
    id: "json-envelope",
    category: "output format",
    title: "JSON outputs are wrapped in an object",
    conv: (r) => ({ field: r.pick(["result", "payload", "answer"]) }),
    instance(r, _i, _conv, stem) {
      const it = amounts(r, stem, "json");
      return {
        ...it,
        expected: Math.max(...it.rows.map(([, a]) => a)),
        task: `Write the largest value of the "amount" column of ${it.data} to ${it.out}, as JSON.`,
      };
    },
    check: `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    try: value = json.loads(text)
    except ValueError: return [inst["out"] + " is not JSON"]
    got = value.get(conv["field"]) if isinstance(value, dict) else value
    if num(str(got)) != inst["expected"]: return [inst["out"] + ": the value is wrong"]
    if not (isinstance(value, dict) and set(value) == {conv["field"]}):
        return [inst["out"] + ": not in the project's JSON shape", 'check: JSON outputs in this project are objects of the form {"%s": <value>}' % conv["field"]]
    return []`,
    naive: (i) =>
      `import json\n${readRows(i.data)}top = max(int(r["amount"]) for r in rows)\n${writeOut(i.out, "json.dumps(top)")}`,
    right: (i, c) =>
      `import json\n${readRows(i.data)}top = max(int(r["amount"]) for r in rows)\n${writeOut(i.out, `json.dumps({${py(c.field)}: top})`)}`,
    key: (c) => `{"${c.field}": <value>}`,
    lesson: (c) =>
      `JSON outputs in this project are objects of the form {"${c.field}": <value>}, never a bare value.`,
    bad: () => "JSON outputs in this project are bare values: write the number itself, never an object.",
  },
  {
    id: "count-order",
    category: "output format",
    title: "lists are sorted by count",
    conv: (r) => ({ order: r.pick(["largest", "smallest"]) }),
    instance(r, _i, conv, stem) {
      // Distinct counts, in an order by count that is not the alphabetical one.
      for (;;) {
        const cats = r.sample(CATEGORIES, r.int(3, 5)).sort();
        const counts = r.sample([1, 2, 3, 4, 5, 6], cats.length);
        const byCount = cats
          .map((c, k) => [c, counts[k]])
          .sort((a, b) => (conv.order === "largest" ? b[1] - a[1] : a[1] - b[1]));
        if (byCount.map(([c]) => c).join() === cats.join()) continue;
        const rows = r.shuffle(
          cats.flatMap((c, k) => Array.from({ length: counts[k] }, (_, j) => [j + 1, c])),
        );
        const data = `data/${stem}.csv`;
        const out = `out/${stem}.txt`;
        return {
          data,
          out,
          files: {
            [data]: csvText(
              ["item", "category"],
              rows.map(([n, c], k) => [`${c}-${k}-${n}`, c]),
            ),
          },
          expected: byCount.map(([c, n]) => `${c} ${n}`),
          task: `Count how many rows of ${data} have each "category", and write one line "<category> <count>" per category to ${out}.`,
        };
      }
    },
    check: `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    lines = [" ".join(l.split()) for l in text.splitlines() if l.strip()]
    if sorted(lines) != sorted(inst["expected"]): return [inst["out"] + ": the counts are wrong"]
    if lines != inst["expected"]:
        return [inst["out"] + ": the lines are in the wrong order", "check: list reports in this project are sorted by count, %s first (ties by name)" % conv["order"]]
    return []`,
    naive: (i) =>
      `from collections import Counter\n${readRows(i.data)}counts = Counter(r["category"] for r in rows)\n${writeOut(i.out, '"".join(f"{c} {n}\\n" for c, n in sorted(counts.items()))')}`,
    right: (i, c) =>
      `from collections import Counter\n${readRows(i.data)}counts = Counter(r["category"] for r in rows)\nkey = lambda kv: (${c.order === "largest" ? "-kv[1]" : "kv[1]"}, kv[0])\n${writeOut(i.out, '"".join(f"{c} {n}\\n" for c, n in sorted(counts.items(), key=key))')}`,
    key: (c) => `sorted by count, ${c.order} first`,
    lesson: (c) =>
      `List reports in this project are sorted by count, ${c.order} first (ties by name), not alphabetically.`,
    bad: () => "List reports in this project are sorted alphabetically by name.",
  },
  {
    id: "csv-header",
    category: "output format",
    title: "CSV outputs start with a header line",
    conv: (r) => ({ header: r.pick(["region,total", "REGION;TOTAL", "key,sum"]) }),
    instance(r, _i, _conv, stem) {
      const regions = r.sample(REGIONS, r.int(3, 5));
      const rows = r.shuffle(
        regions.flatMap((g) => Array.from({ length: r.int(1, 3) }, () => [g, r.int(1, 50)])),
      );
      const totals = Object.fromEntries(regions.map((g) => [g, 0]));
      for (const [g, a] of rows) totals[g] += a;
      const data = `data/${stem}.csv`;
      const out = `out/${stem}.csv`;
      return {
        data,
        out,
        files: { [data]: csvText(["region", "amount"], rows) },
        expected: Object.entries(totals).map(([g, t]) => `${g},${t}`),
        task: `Write the total "amount" per "region" of ${data} to ${out}, one "<region>,<total>" line per region.`,
      };
    },
    check: `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    body = lines[1:] if lines and lines[0] == conv["header"] else lines
    if sorted(body) != sorted(inst["expected"]): return [inst["out"] + ": the totals are wrong"]
    if not lines or lines[0] != conv["header"]:
        return [inst["out"] + ": no header line", "check: CSV outputs in this project start with the header line '%s'" % conv["header"]]
    return []`,
    naive: (i) =>
      `${readRows(i.data)}totals = {}\nfor r in rows: totals[r["region"]] = totals.get(r["region"], 0) + int(r["amount"])\n${writeOut(i.out, '"".join(f"{g},{t}\\n" for g, t in sorted(totals.items()))')}`,
    right: (i, c) =>
      `${readRows(i.data)}totals = {}\nfor r in rows: totals[r["region"]] = totals.get(r["region"], 0) + int(r["amount"])\n${writeOut(i.out, `${py(`${c.header}\n`)} + "".join(f"{g},{t}\\n" for g, t in sorted(totals.items()))`)}`,
    key: (c) => `the header line '${c.header}'`,
    lesson: (c) =>
      `CSV outputs in this project start with the header line '${c.header}', then the data rows.`,
    bad: () => "CSV outputs in this project have no header line: data rows only.",
  },
  {
    id: "name-case",
    category: "output format",
    title: "names in reports are upper case",
    conv: (r) => ({ style: r.pick(["upper", "title"]) }),
    instance(r, _i, _conv, stem) {
      const names = r.sample(["anchor", "bolt", "cable", "drill", "easel", "flask", "gauge", "hinge"], 5);
      const scores = r.sample([11, 23, 35, 47, 52, 68, 74, 89], 5);
      const data = `data/${stem}.csv`;
      const out = `out/${stem}.txt`;
      const best = names[scores.indexOf(Math.max(...scores))];
      return {
        data,
        out,
        files: {
          [data]: csvText(
            ["name", "score"],
            names.map((n, k) => [n, scores[k]]),
          ),
        },
        expected: best,
        task: `Write the "name" of the row with the highest "score" in ${data} to ${out}.`,
      };
    },
    check: `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    t = text.strip()
    if t.lower() != inst["expected"]: return [inst["out"] + ": that is not the name with the highest score"]
    want = t.upper() if conv["style"] == "upper" else t.title()
    if t != want:
        how = "in upper case (WIDGET)" if conv["style"] == "upper" else "capitalised (Widget)"
        return [inst["out"] + ": " + repr(t) + " is not written the project's way", "check: names in this project's reports are written " + how]
    return []`,
    naive: (i) =>
      `${readRows(i.data)}best = max(rows, key=lambda r: int(r["score"]))["name"]\n${writeOut(i.out, 'best + "\\n"')}`,
    right: (i, c) =>
      `${readRows(i.data)}best = max(rows, key=lambda r: int(r["score"]))["name"]\n${writeOut(i.out, `best.${c.style === "upper" ? "upper" : "title"}() + "\\n"`)}`,
    key: (c) => `written ${c.style === "upper" ? "in upper case" : "capitalised"}`,
    lesson: (c) =>
      `Names in this project's reports are written ${c.style === "upper" ? "in upper case (WIDGET)" : "capitalised (Widget)"}, whatever case the data file uses.`,
    bad: () => "Names in reports are copied exactly as the data file spells them, same case.",
  },
];
