// Trap families: the project's own tool must be run a particular way — a required flag, or an
// environment variable. The task says to run the tool; the gate compares the output with what the tool
// makes when run the project's way, and only its message says which flag or variable that is.
import { csvText, NAMES, py, runTool } from "../kit.mjs";

/** The tool's common head: reads `input` (a CSV path) and writes `lines` to `-o`. `extra` adds arguments. */
const tool = (
  extra,
  body,
  input = 'p.add_argument("input", help="the data file (CSV)")',
) => `#!/usr/bin/env python3
"""Build a report from one of the project's data files."""
import argparse, csv, os, random, sys
p = argparse.ArgumentParser(description=__doc__)
${input}
p.add_argument("-o", "--output", required=True, help="where to write the report")
p.add_argument("--verbose", action="store_true", help="say more")
${extra}
a = p.parse_args()
${body}
os.makedirs(os.path.dirname(a.output) or ".", exist_ok=True)
with open(a.output, "w") as f:
    f.write("\\n".join(lines) + "\\n")
`;
const readInput = `rows = list(csv.DictReader(open(a.input, newline="")))`;

/** The checker of every tool family: the output must equal what the tool makes run the project's way. */
const CHECK_TOOL = `def check(inst, conv):
    text = read(inst["out"])
    if text is None: return [inst["out"] + " does not exist"]
    ref = reference(inst["argv"] + conv["args"], conv["env"], conv["strip"], inst["out"])
    if ref is None: return ["check: the project's tool failed when run the project's way"]
    if text == ref: return []
    return [inst["out"] + " differs from what the project's build makes", conv["reveal"]]`;

/** A tool family: `conv` gives args/env and the revealing line; instances run `tools/NAME.py DATA -o OUT`. */
function toolFamily(spec) {
  return {
    ...spec,
    check: CHECK_TOOL,
    instance(r, i, conv, stem) {
      const made = spec.data(r, conv, stem, i);
      const out = `out/${stem}.txt`;
      const argv = made.argv ?? [`tools/${spec.tool}.py`, made.data, "-o", out];
      return {
        data: made.data,
        out,
        argv,
        files: { ...made.files, [`tools/${spec.tool}.py`]: spec.source(conv) },
        task:
          made.task ??
          `Produce ${out} by running tools/${spec.tool}.py on ${made.data} (usage: python3 tools/${spec.tool}.py INPUT -o OUTPUT).`,
      };
    },
    naive: (i) => runTool(i.argv),
    right: (i, c) => runTool([...i.argv, ...c.args], c.env),
  };
}

/** A plain (name, amount) data file. */
function plain(r, _conv, stem) {
  const data = `data/${stem}.csv`;
  const rows = r.sample(NAMES, r.int(5, 8)).map((n) => [n, r.int(5, 90)]);
  return { data, files: { [data]: csvText(["name", "amount"], rows) } };
}

const flag = (args, reveal) => ({ args, env: {}, strip: [], reveal });
const env = (name, value, reveal) => ({ args: [], env: { [name]: value }, strip: [name], reveal });
const BAD_FLAG = "tools/report.py is run with its defaults only: extra flags break this project's reports.";
const BAD_ENV = "tools/export.py needs no environment variables: run it as it is.";

export const flags = [
  toolFamily({
    id: "flag-strict",
    category: "required flag",
    title: "the report tool is run in strict mode",
    tool: "report",
    conv: (r) => {
      const f = r.pick(["--strict", "--pedantic", "--checked"]);
      return { flag: f, ...flag([f], `check: reports in this project are built with tools/report.py ${f}`) };
    },
    source: (c) =>
      tool(
        `p.add_argument(${py(c.flag)}, action="store_true", help="check every row")`,
        `${readInput}\nmode = "strict" if a.${c.flag.slice(2)} else "lax"\nlines = [f"# report mode={mode}"] + [f"{r['name']} {r['amount']}" for r in rows]`,
      ),
    data: plain,
    key: (c) => `built with tools/report.py ${c.flag}`,
    lesson: (c) => `Reports in this project are built with tools/report.py ${c.flag}: always pass that flag.`,
    bad: () => BAD_FLAG,
  }),
  toolFamily({
    id: "flag-currency",
    category: "required flag",
    title: "reports are in one currency",
    tool: "report",
    conv: (r) => {
      const cur = r.pick(["EUR", "GBP", "CHF"]);
      return {
        cur,
        ...flag(
          ["--currency", cur],
          `check: reports in this project are in ${cur}: run tools/report.py with --currency ${cur}`,
        ),
      };
    },
    source: () =>
      tool(
        'p.add_argument("--currency", default="USD", help="currency of the amounts")',
        `${readInput}\nrate = {"USD": 1.0, "EUR": 0.92, "GBP": 0.79, "CHF": 0.88}[a.currency]\nlines = [f"# currency {a.currency}"] + [f"{r['name']} {float(r['amount']) * rate:.2f}" for r in rows]`,
      ),
    data: plain,
    key: (c) => `--currency ${c.cur}`,
    lesson: (c) => `Reports in this project are in ${c.cur}: run tools/report.py with --currency ${c.cur}.`,
    bad: () => BAD_FLAG,
  }),
  toolFamily({
    id: "flag-seed",
    category: "required flag",
    title: "samples use the project's seed",
    tool: "report",
    conv: (r) => {
      const seed = String(r.pick([7, 42, 1234]));
      return {
        seed,
        ...flag(
          ["--seed", seed],
          `check: samples in this project are reproducible: run tools/report.py with --seed ${seed}`,
        ),
      };
    },
    source: () =>
      tool(
        'p.add_argument("--seed", type=int, default=None, help="seed of the sample")',
        `${readInput}\npicked = random.Random(a.seed).sample(rows, 3)\nlines = [f"# sample seed={a.seed}"] + [f"{r['name']} {r['amount']}" for r in picked]`,
      ),
    data: plain,
    key: (c) => `--seed ${c.seed}`,
    lesson: (c) => `Samples in this project must be reproducible: run tools/report.py with --seed ${c.seed}.`,
    bad: () => BAD_FLAG,
  }),
  toolFamily({
    id: "flag-format",
    category: "required flag",
    title: "reports use a newer format version",
    tool: "report",
    conv: (r) => {
      const v = r.pick(["2", "3"]);
      return {
        v,
        ...flag(
          ["--format", v],
          `check: this project's reports use format v${v}: run tools/report.py with --format ${v}`,
        ),
      };
    },
    source: () =>
      tool(
        'p.add_argument("--format", default="1", choices=["1", "2", "3"], help="layout version")',
        `${readInput}\nsep = {"1": " ", "2": "\\t", "3": "="}[a.format]\nlines = [f"# format v{a.format}"] + [f"{r['name']}{sep}{r['amount']}" for r in rows]`,
      ),
    data: plain,
    key: (c) => `--format ${c.v}`,
    lesson: (c) => `This project's reports use format v${c.v}: run tools/report.py with --format ${c.v}.`,
    bad: () => BAD_FLAG,
  }),
  toolFamily({
    id: "flag-live-rows",
    category: "required flag",
    title: "test rows are left out of reports",
    tool: "report",
    conv: (r) => {
      const f = r.pick(["--skip-drafts", "--live-only", "--no-test-rows"]);
      return {
        flag: f,
        ...flag([f], `check: reports in this project leave out test rows: run tools/report.py with ${f}`),
      };
    },
    source: (c) =>
      tool(
        `p.add_argument(${py(c.flag)}, action="store_true", help="leave out rows whose status is test")`,
        `${readInput}\nif a.${c.flag.slice(2).replaceAll("-", "_")}: rows = [r for r in rows if r["status"] != "test"]\nlines = [f"# rows {len(rows)}"] + [f"{r['name']} {r['amount']}" for r in rows]`,
      ),
    data(r, _conv, stem) {
      const data = `data/${stem}.csv`;
      const rows = r.sample(NAMES, 7).map((n, k) => [n, r.int(5, 90), k < 2 ? "test" : "live"]);
      return { data, files: { [data]: csvText(["name", "amount", "status"], r.shuffle(rows)) } };
    },
    key: (c) => `tools/report.py with ${c.flag}`,
    lesson: (c) => `Reports in this project leave out test rows: run tools/report.py with ${c.flag}.`,
    bad: () => BAD_FLAG,
  }),
  toolFamily({
    id: "flag-round",
    category: "required flag",
    title: "reports round their amounts",
    tool: "report",
    conv: (r) => {
      const n = String(r.pick([1, 2]));
      return {
        n,
        ...flag(
          ["--round", n],
          `check: reports in this project are rounded: run tools/report.py with --round ${n}`,
        ),
      };
    },
    source: () =>
      tool(
        'p.add_argument("--round", type=int, default=None, help="decimal places to round to")',
        `${readInput}\nfix = (lambda x: round(x, a.round)) if a.round is not None else (lambda x: x)\nlines = [f"# round {a.round}"] + [f"{r['name']} {fix(float(r['amount']))}" for r in rows]`,
      ),
    data(r, _conv, stem) {
      const data = `data/${stem}.csv`;
      const rows = r.sample(NAMES, 6).map((n) => [n, (r.int(1000, 99999) / 1000).toFixed(3)]);
      return { data, files: { [data]: csvText(["name", "amount"], rows) } };
    },
    key: (c) => `--round ${c.n}`,
    lesson: (c) => `Reports in this project are rounded: run tools/report.py with --round ${c.n}.`,
    bad: () => BAD_FLAG,
  }),
];

/** The export tool: a report stamped with what the environment said. `body` builds `lines` from `rows`. */
const exporter = (body, input) => tool("", body, input);

export const environment = [
  toolFamily({
    id: "env-app",
    category: "environment variable",
    title: "exports run with APP_ENV set",
    tool: "export",
    conv: (r) => {
      const v = r.pick(["ci", "staging", "batch"]);
      return { v, ...env("APP_ENV", v, `check: exports in this project run with APP_ENV=${v}`) };
    },
    source: () =>
      exporter(
        `${readInput}\nlines = [f"# exported env={os.environ.get('APP_ENV', 'dev')}"] + [f"{r['name']} {r['amount']}" for r in rows]`,
      ),
    data: plain,
    key: (c) => `APP_ENV=${c.v}`,
    lesson: (c) =>
      `Exports in this project run with the environment variable APP_ENV=${c.v} (tools/export.py reads it).`,
    bad: () => BAD_ENV,
  }),
  toolFamily({
    id: "env-data-root",
    category: "environment variable",
    title: "the current data lives under another root",
    tool: "export",
    conv: (r) => {
      const dir = r.pick(["data/current", "data/v2"]);
      return {
        dir,
        ...env(
          "REPORT_DATA_ROOT",
          dir,
          `check: exports in this project read ${dir}: set REPORT_DATA_ROOT=${dir} when running tools/export.py`,
        ),
      };
    },
    source: () =>
      exporter(
        `root = os.environ.get("REPORT_DATA_ROOT", "data/legacy")\nrows = list(csv.DictReader(open(os.path.join(root, a.name + ".csv"), newline="")))\nlines = [f"# data {a.name}"] + [f"{r['name']} {r['amount']}" for r in rows]`,
        'p.add_argument("name", help="which data set")',
      ),
    data(r, conv, stem) {
      const rows = r.sample(NAMES, 6).map((n) => [n, r.int(5, 90)]);
      const stale = rows.map(([n, a]) => [n, a + r.int(1, 9)]);
      return {
        data: `${conv.dir}/${stem}.csv`,
        argv: ["tools/export.py", stem, "-o", `out/${stem}.txt`],
        task: `Produce out/${stem}.txt by running tools/export.py for the "${stem}" data set (usage: python3 tools/export.py NAME -o OUTPUT).`,
        files: {
          [`data/legacy/${stem}.csv`]: csvText(["name", "amount"], stale),
          [`${conv.dir}/${stem}.csv`]: csvText(["name", "amount"], rows),
        },
      };
    },
    key: (c) => `REPORT_DATA_ROOT=${c.dir}`,
    lesson: (c) =>
      `Exports in this project read ${c.dir}: run tools/export.py with the environment variable REPORT_DATA_ROOT=${c.dir}.`,
    bad: () => BAD_ENV,
  }),
  toolFamily({
    id: "env-tz",
    category: "environment variable",
    title: "exports are stamped in one time zone",
    tool: "export",
    conv: (r) => {
      const tz = r.pick(["UTC", "Etc/GMT-2"]);
      return {
        tz,
        ...env(
          "REPORT_TZ",
          tz,
          `check: exports in this project are stamped in one time zone: run tools/export.py with REPORT_TZ=${tz}`,
        ),
      };
    },
    source: () =>
      exporter(
        `${readInput}\nlines = [f"# tz={os.environ.get('REPORT_TZ', 'local')}"] + [f"{r['name']} {r['amount']}" for r in rows]`,
      ),
    data: plain,
    key: (c) => `REPORT_TZ=${c.tz}`,
    lesson: (c) =>
      `Exports in this project are stamped in one time zone: run tools/export.py with REPORT_TZ=${c.tz}.`,
    bad: () => BAD_ENV,
  }),
  toolFamily({
    id: "env-netting",
    category: "environment variable",
    title: "refunds count only with a feature switch",
    tool: "export",
    conv: (r) => {
      const name = r.pick(["REPORT_NET_REFUNDS", "REPORT_NETTING"]);
      return {
        name,
        ...env(name, "1", `check: refunds were left out; exports in this project run with ${name}=1`),
      };
    },
    source: (c) =>
      exporter(
        `${readInput}\nnet = os.environ.get(${py(c.name)}) == "1"\nkept = [r for r in rows if net or float(r["amount"]) >= 0]\nlines = [f"# total {sum(float(r['amount']) for r in kept)}"] + [f"{r['name']} {r['amount']}" for r in kept]`,
      ),
    data(r, _conv, stem) {
      const data = `data/${stem}.csv`;
      const rows = r.sample(NAMES, 7).map((n, k) => [n, k < 2 ? -r.int(5, 30) : r.int(5, 90)]);
      return { data, files: { [data]: csvText(["name", "amount"], r.shuffle(rows)) } };
    },
    key: (c) => `${c.name}=1`,
    lesson: (c) =>
      `Exports in this project net refunds: run tools/export.py with the environment variable ${c.name}=1.`,
    bad: () => BAD_ENV,
  }),
  toolFamily({
    id: "env-author",
    category: "environment variable",
    title: "exports are signed by an author",
    tool: "export",
    conv: (r) => {
      const a = r.pick(["ci-bot", "release-team"]);
      return {
        a,
        ...env(
          "REPORT_AUTHOR",
          a,
          `check: exports in this project are signed: run tools/export.py with REPORT_AUTHOR=${a}`,
        ),
      };
    },
    source: () =>
      exporter(
        `${readInput}\nlines = [f"# author {os.environ.get('REPORT_AUTHOR', 'unknown')}"] + [f"{r['name']} {r['amount']}" for r in rows]`,
      ),
    data: plain,
    key: (c) => `REPORT_AUTHOR=${c.a}`,
    lesson: (c) =>
      `Exports in this project are signed: run tools/export.py with REPORT_AUTHOR=${c.a} in the environment.`,
    bad: () => BAD_ENV,
  }),
  toolFamily({
    id: "env-plain",
    category: "environment variable",
    title: "exports must not carry colour codes",
    tool: "export",
    conv: (r) => {
      const name = r.pick(["REPORT_PLAIN", "REPORT_NO_COLOR"]);
      return {
        name,
        ...env(name, "1", `check: exports must be plain text: run tools/export.py with ${name}=1`),
      };
    },
    source: (c) =>
      exporter(
        `${readInput}\nplain = os.environ.get(${py(c.name)}) == "1"\npaint = (lambda s: s) if plain else (lambda s: "\\x1b[1m" + s + "\\x1b[0m")\nlines = [paint(f"{r['name']} {r['amount']}") for r in rows]`,
      ),
    data: plain,
    key: (c) => `${c.name}=1`,
    lesson: (c) =>
      `Exports must be plain text: run tools/export.py with the environment variable ${c.name}=1.`,
    bad: () => BAD_ENV,
  }),
];
