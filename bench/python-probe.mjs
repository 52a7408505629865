// What the module listing (python.ts PROBE_MODULES) adds to the interpreter probe a first run pays (its
// answer is cached in RELM_HOME/cache/python.json). Run after `npm run build`:
//   node bench/python-probe.mjs [PYTHON ...]     (default: python3 /usr/bin/python3)
// Prints, per interpreter, the medians of 20 runs: the listing's own time, timed inside Python (the
// machine's load hardly touches it), and the whole probe's wall time without and with it.
import { execFileSync } from "node:child_process";
import { PROBE_MODULES, PYTHON_PROBE } from "../dist/kernel/python.js";

const RUNS = 20;
const facts = PYTHON_PROBE.replace(/\nprint\(json\.dumps\(r\)\)$/, "");
const timed = [
  "import time",
  "t0 = time.perf_counter()",
  facts,
  "t1 = time.perf_counter()",
  PROBE_MODULES,
  "t2 = time.perf_counter()",
  'print("%.3f %.3f" % ((t1 - t0) * 1000, (t2 - t1) * 1000))',
].join("\n");
const local = `${facts}\n${PROBE_MODULES}\nprint(json.dumps(r))`;

function wall(python, code) {
  const start = process.hrtime.bigint();
  execFileSync(python, ["-c", code]);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1].toFixed(1);

const pythons = process.argv.slice(2);
for (const python of pythons.length > 0 ? pythons : ["python3", "/usr/bin/python3"]) {
  const listing = [];
  const before = [];
  const after = [];
  for (let i = 0; i < RUNS; i++) {
    listing.push(Number(execFileSync(python, ["-c", timed], { encoding: "utf8" }).trim().split(" ")[1]));
    before.push(wall(python, PYTHON_PROBE));
    after.push(wall(python, local));
  }
  const names = JSON.parse(execFileSync(python, ["-c", local], { encoding: "utf8" })).modules.length;
  console.log(
    `${python}: module listing ${median(listing)} ms (${names} names); ` +
      `probe ${median(before)} -> ${median(after)} ms wall (medians of ${RUNS})`,
  );
}
