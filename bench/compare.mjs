// `npm run bench -- --compare REV [--quick] [--rounds N] [--only a,b]`: the key figures of the working
// tree against REV, interleaved. REV is built once in a worktree beside the system's temp files (reused
// while its commit is the same); then every round measures each probe once per tree, alternating which
// tree goes first, so both see the same load. Prints each probe's medians, the ratio now/base (below
// 1 is faster) and the load average. The working tree must be built (`npm run bench` builds it).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { PROBES, startFixture } from "./compare-probes.mjs";
import { median, ROOT, table } from "./lib.mjs";

const USAGE = `usage: npm run bench -- --compare REV [--quick] [--rounds N] [--only a,b]
  Builds REV in a worktree and runs the key probes interleaved against this tree, printing ratios.
  --quick     3 rounds (default 7)      --rounds N  N rounds
  --only a,b  only these probes: ${Object.keys(PROBES).join(", ")} (opt-in ones only by name)`;

/** A mistake on the command line: said in one line with the usage, exit 2, no stack trace. */
function usageError(message) {
  console.error(`bench --compare: ${message}\n${USAGE}`);
  process.exit(2);
}

function parse(argv) {
  const o = { rev: undefined, quick: false, rounds: undefined, only: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--help" || a === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else if (a === "--compare") o.rev = argv[++i];
    else if (a.startsWith("--compare=")) o.rev = a.slice("--compare=".length);
    else if (a === "--quick") o.quick = true;
    else if (a === "--rounds") o.rounds = Number(argv[++i]);
    else if (a === "--only") o.only = (argv[++i] ?? "").split(",").filter(Boolean);
    else usageError(`unknown argument ${a}`);
  }
  if (!o.rev) usageError("needs a revision, e.g. `npm run bench -- --compare main`");
  if (o.rounds !== undefined && !(Number.isInteger(o.rounds) && o.rounds > 0))
    usageError("--rounds takes a whole number above 0");
  const unknown = (o.only ?? []).filter((n) => !PROBES[n]);
  if (unknown.length > 0) usageError(`no probe named ${unknown.join(", ")}`);
  return o;
}

const git = (...args) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();

/** REV's tree, built: a detached worktree named after the commit, reused when its build is there. */
function baseTree(rev) {
  const sha = git("rev-parse", "--verify", `${rev}^{commit}`);
  const dir = join(tmpdir(), `relm-bench-base-${sha.slice(0, 12)}`);
  const stamp = join(dir, "dist/.bench-built");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === sha) return { sha, dir, reused: true };
  if (!existsSync(dir)) git("worktree", "add", "--quiet", "--detach", dir, sha);
  if (!existsSync(join(dir, "node_modules")))
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(dir, "node_modules"));
  console.log(`building ${rev} (${sha.slice(0, 12)}) in ${dir} ...`);
  execFileSync("npm", ["run", "build", "--silent"], { cwd: dir, stdio: "inherit" });
  writeFileSync(stamp, sha);
  return { sha, dir, reused: false };
}

const opts = parse(process.argv.slice(2));
const base = baseTree(opts.rev);
const rounds = opts.rounds ?? (opts.quick ? 3 : 7);
const names = opts.only ?? Object.keys(PROBES).filter((n) => !PROBES[n].optIn);
for (const n of names)
  if (!PROBES[n]) throw new Error(`bench --compare: no probe ${n} (${Object.keys(PROBES).join(", ")})`);
const options = { cells: opts.quick ? 200 : 1000 };
const trees = { base: base.dir, now: ROOT };
const fixture = await startFixture({
  sessions: opts.quick ? 200 : 1000,
  turns: opts.quick ? 12 : 30,
  children: opts.quick ? 10 : 20,
  trees: Object.values(trees),
});
const values = Object.fromEntries(names.map((n) => [n, { base: [], now: [] }]));
const load = [loadavg()[0]];
const head = git("rev-parse", "--short=12", "HEAD");
const dirty = git("status", "--porcelain", "--untracked-files=no") !== "";
console.log(
  `# now ${head}${dirty ? " + uncommitted changes" : ""} against ${opts.rev} (${base.sha.slice(0, 12)}${base.reused ? ", reused build" : ""}); ${rounds} interleaved rounds${opts.quick ? ", --quick" : ""}`,
);
try {
  for (let r = 0; r < rounds; r++) {
    for (const name of names) {
      const order = (r + names.indexOf(name)) % 2 === 0 ? ["base", "now"] : ["now", "base"];
      for (const which of order)
        values[name][which].push(await PROBES[name].run(trees[which], fixture, options));
    }
    load.push(loadavg()[0]);
    process.stderr.write(`round ${r + 1}/${rounds} done, load ${loadavg()[0].toFixed(1)}\n`);
  }
} finally {
  await fixture.close();
}
const fmt = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
table(
  names.map((n) => {
    const b = median(values[n].base);
    const w = median(values[n].now);
    const pairs = values[n].now.map((v, i) => v / values[n].base[i]);
    return {
      probe: PROBES[n].label,
      [`base ${PROBES[n].unit}`]: fmt(b),
      [`now ${PROBES[n].unit}`]: fmt(w),
      ratio: (w / b).toFixed(2),
      "pair ratios min–max": `${Math.min(...pairs).toFixed(2)}–${Math.max(...pairs).toFixed(2)}`,
    };
  }),
);
console.log(
  `load average (1 min) over the run: ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)} on ${execFileSync("nproc", { encoding: "utf8" }).trim()} cores`,
);
