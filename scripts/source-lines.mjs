#!/usr/bin/env node
// Counts the product's source lines at a git revision, per top folder: src/**/*.ts(x) and python/relm's
// .py files, split into code, comment and blank lines (issue 23 measures code lines: what comments and
// formatting do to a count is not a change of the code). `--against REV` adds the change per folder.
// A line inside a block comment, or starting with // or # (Python), is a comment; strings are code.
import { execFileSync } from "node:child_process";

const usage = `usage: node scripts/source-lines.mjs [REV] [--against REV]
  REV          the revision to count (default HEAD)
  --against R  also count R and print the change per folder`;

function fail(message) {
  process.stderr.write(`source-lines: ${message}\n${usage}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
let rev = "HEAD";
let against;
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === "--help" || arg === "-h") {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  } else if (arg === "--against") {
    against = args[++i];
    if (!against) fail("--against needs a revision");
  } else if (arg.startsWith("-")) fail(`unknown option ${arg}`);
  else rev = arg;
}

const git = (...a) => execFileSync("git", a, { encoding: "utf8", maxBuffer: 1 << 28 });

/** Splits one file's text into code, comment and blank line counts. */
function classify(text, python) {
  const counts = { code: 0, comment: 0, blank: 0 };
  let inBlock = false;
  for (const raw of text.replace(/\n$/, "").split("\n")) {
    const line = raw.trim();
    if (line === "") counts.blank++;
    else if (inBlock) {
      counts.comment++;
      if (line.includes("*/")) inBlock = false;
    } else if (python ? line.startsWith("#") : line.startsWith("//")) counts.comment++;
    else if (!python && line.startsWith("/*")) {
      counts.comment++;
      inBlock = !line.includes("*/");
    } else counts.code++;
  }
  return counts;
}

/** Per folder (src/NAME, python/relm) the summed counts of the product's files at `at`. */
function count(at) {
  try {
    git("rev-parse", "--verify", "--quiet", `${at}^{commit}`);
  } catch {
    fail(`${at} is not a revision of this repository`);
  }
  const files = git("ls-tree", "-r", "--name-only", at, "src", "python/relm")
    .split("\n")
    .filter((f) => /^src\/.*\.tsx?$/.test(f) || /^python\/relm\/.*\.py$/.test(f));
  // One `git cat-file --batch` for all files: a process per file would take seconds.
  const out = execFileSync("git", ["cat-file", "--batch"], {
    input: files.map((f) => `${at}:${f}\n`).join(""),
    maxBuffer: 1 << 28,
  });
  const folders = new Map();
  let offset = 0;
  for (const file of files) {
    const headerEnd = out.indexOf(10, offset);
    const size = Number(out.subarray(offset, headerEnd).toString().split(" ")[2]);
    const text = out.subarray(headerEnd + 1, headerEnd + 1 + size).toString("utf8");
    offset = headerEnd + 1 + size + 1;
    const folder = file.startsWith("python/") ? "python/relm" : file.split("/").slice(0, 2).join("/");
    const c = classify(text, file.endsWith(".py"));
    const sum = folders.get(folder) ?? { files: 0, code: 0, comment: 0, blank: 0 };
    sum.files++;
    sum.code += c.code;
    sum.comment += c.comment;
    sum.blank += c.blank;
    folders.set(folder, sum);
  }
  return folders;
}

function total(folders, filter) {
  const t = { files: 0, code: 0, comment: 0, blank: 0 };
  for (const [name, s] of folders) {
    if (!filter(name)) continue;
    for (const k of Object.keys(t)) t[k] += s[k];
  }
  return t;
}

const now = count(rev);
const then = against ? count(against) : undefined;
const names = [...new Set([...now.keys(), ...(then?.keys() ?? [])])].sort();
const pad = (s, n) => String(s).padStart(n);
const change = (a, b) =>
  b === 0 && a > 0
    ? `${pad(`+${a}`, 7)}    new`
    : b
      ? `${pad(a - b >= 0 ? `+${a - b}` : a - b, 7)} ${pad(((100 * (a - b)) / b).toFixed(1), 6)}%`
      : "";
const header = `${"folder".padEnd(18)}${pad("files", 6)}${pad("code", 8)}${pad("comment", 9)}${pad("blank", 7)}`;
process.stdout.write(`${rev}${then ? ` against ${against} (change of code lines)` : ""}\n${header}\n`);
const row = (name, s, b) =>
  `${name.padEnd(18)}${pad(s.files, 6)}${pad(s.code, 8)}${pad(s.comment, 9)}${pad(s.blank, 7)}  ${change(s.code, b?.code)}\n`;
const zero = { files: 0, code: 0, comment: 0, blank: 0 };
for (const name of names)
  process.stdout.write(row(name, now.get(name) ?? zero, then?.get(name) ?? (then ? zero : undefined)));
const isTs = (n) => n.startsWith("src/");
process.stdout.write(row("TypeScript", total(now, isTs), then && total(then, isTs)));
process.stdout.write(
  row(
    "all",
    total(now, () => true),
    then && total(then, () => true),
  ),
);
