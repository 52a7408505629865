// 30 trap-free control tasks: the plain solution passes their gate the first time. They run in a family's
// project after its instances, with whatever lessons the condition left there, so a lesson that leaks
// into unrelated work (a trailer line on every file, say) shows up as a control that no longer passes.
import { amountRows, csvText, py, readRows, writeOut } from "./kit.mjs";

const FUNCTIONS = [
  ["halve_floor", "x divided by 2, rounded down (x // 2)", "x // 2", (x) => Math.floor(x / 2)],
  ["sign", "-1, 0 or 1 by the sign of x", "(x > 0) - (x < 0)", (x) => Math.sign(x)],
  ["twice_plus_one", "2 * x + 1", "2 * x + 1", (x) => 2 * x + 1],
  ["absolute", "the absolute value of x", "abs(x)", (x) => Math.abs(x)],
  ["square_minus_one", "x * x - 1", "x * x - 1", (x) => x * x - 1],
];

const TITLES = ["Release notes", "Meeting minutes", "Open questions", "Reading list", "Design sketch"];

/** Each template: files, task, a checker (Python `check(inst, conv)`) and the plain solution. */
const TEMPLATES = [
  {
    name: "row-count",
    make(r, stem) {
      const rows = amountRows(r, r.int(4, 12));
      const data = `data/${stem}.csv`;
      const out = `out/${stem}-rows.txt`;
      return {
        data,
        out,
        expected: rows.length,
        files: { [data]: csvText(["name", "amount"], rows) },
        task: `Write the number of data rows of ${data} (not counting its header line) to ${out}.`,
      };
    },
    check: `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    if num(text.strip()) != inst["expected"]: return [inst["out"] + ": wrong count"]
    return []`,
    solve: (i) => `${readRows(i.data)}${writeOut(i.out, 'f"{len(rows)}\\n"')}`,
  },
  {
    name: "distinct-names",
    make(r, stem) {
      const rows = amountRows(r, r.int(4, 8));
      const data = `data/${stem}.csv`;
      const out = `out/${stem}-names.txt`;
      return {
        data,
        out,
        expected: rows.map(([n]) => n).sort(),
        files: { [data]: csvText(["name", "amount"], rows) },
        task: `Write the distinct values of the "name" column of ${data}, one per line, sorted alphabetically, to ${out}.`,
      };
    },
    check: `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    if [l.strip() for l in text.splitlines() if l.strip()] != inst["expected"]: return [inst["out"] + ": wrong names"]
    return []`,
    solve: (i) =>
      `${readRows(i.data)}names = sorted({r["name"] for r in rows})\n${writeOut(i.out, '"".join(n + "\\n" for n in names)')}`,
  },
  {
    name: "add-function",
    make(r) {
      const [fn, desc, body, f] = r.pick(FUNCTIONS);
      return {
        fn,
        body,
        cases: [0, 1, 4, 7, -5].map((x) => [x, f(x)]),
        files: { "util.py": '"""Helpers."""\n' },
        task: `Add a function \`${fn}(x)\` to util.py that returns ${desc}.`,
      };
    },
    check: `def check(inst, conv):
    sys.path.insert(0, os.getcwd())
    try: fn = getattr(importlib.import_module("util"), inst["fn"])
    except Exception as e: return ["util." + inst["fn"] + " cannot be imported: " + repr(e)]
    bad = [x for x, y in inst["cases"] if fn(x) != y]
    return ["util.%s(%r) is wrong" % (inst["fn"], bad[0])] if bad else []`,
    solve: (i) =>
      `src = open("util.py").read()\nopen("util.py", "w").write(src + ${py(`\n\ndef ${i.fn}(x):\n    return ${i.body}\n`)})\nprint("added")\n`,
  },
  {
    name: "markdown-note",
    make(r, stem) {
      const title = r.pick(TITLES);
      const out = `notes/${stem}.md`;
      return {
        out,
        title,
        files: {},
        task: `Create ${out} whose first line is the Markdown heading "# ${title}".`,
      };
    },
    check: `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    if text.splitlines()[:1] != ["# " + inst["title"]]: return [inst["out"] + ": the first line is not the heading"]
    return []`,
    solve: (i) => `import os\n${writeOut(i.out, py(`# ${i.title}\n`))}`,
  },
  {
    name: "copy-file",
    make(r, stem) {
      const rows = amountRows(r, r.int(3, 6));
      const data = `data/${stem}.csv`;
      const out = `backup/${stem}.csv`;
      return {
        data,
        out,
        files: { [data]: csvText(["name", "amount"], rows) },
        task: `Copy ${data} to ${out}, unchanged.`,
      };
    },
    check: `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    if text != read(inst["data"]): return [inst["out"] + " differs from " + inst["data"]]
    return []`,
    solve: (i) =>
      `import os, shutil\nos.makedirs("backup", exist_ok=True)\nshutil.copyfile(${py(i.data)}, ${py(i.out)})\nprint("copied")\n`,
  },
  {
    name: "smallest",
    make(r, stem) {
      const rows = amountRows(r, r.int(4, 9));
      const data = `data/${stem}.csv`;
      const out = `out/${stem}-min.txt`;
      return {
        data,
        out,
        expected: Math.min(...rows.map(([, a]) => a)),
        files: { [data]: csvText(["name", "amount"], rows) },
        task: `Write the smallest value of the "amount" column of ${data} to ${out}.`,
      };
    },
    check: `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    if num(text.strip()) != inst["expected"]: return [inst["out"] + ": wrong value"]
    return []`,
    solve: (i) =>
      `${readRows(i.data)}low = min(int(r["amount"]) for r in rows)\n${writeOut(i.out, 'f"{low}\\n"')}`,
  },
];

/** Control task number `k` (0–29): template k mod 6, its values drawn from `r`. */
export function control(k, r, stem) {
  const t = TEMPLATES[k % TEMPLATES.length];
  return { template: t.name, check: t.check, solve: t.solve, ...t.make(r, stem) };
}

export const CONTROL_COUNT = 30;
