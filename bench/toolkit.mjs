// The toolkit's file functions on a synthetic project (python/relm/toolkit/): grep with each backend
// (ripgrep, git grep, Python; tools hidden through PATH), glob and tree with their .gitignore walk, and
// edit() on a big file. Each figure is the median wall time of several calls inside one Python process.
// Usage: node bench/toolkit.mjs [--files N] [--runs N]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./lib.mjs";

const tempDir = (prefix) => mkdtempSync(join(tmpdir(), prefix));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const FILES = arg("--files", 5000);
const RUNS = arg("--runs", 5);

const project = tempDir("relm-bench-toolkit-");
const noRg = tempDir("relm-bench-path-");
const noTools = tempDir("relm-bench-path-");
try {
  // FILES source files in 50 folders, as many in an ignored node_modules, one 4.5 MB file.
  for (let d = 0; d < 50; d++) {
    mkdirSync(join(project, "src", `pkg${d}`), { recursive: true });
    mkdirSync(join(project, "node_modules", `dep${d}`), { recursive: true });
  }
  for (let i = 0; i < FILES; i++) {
    const body = Array.from({ length: 40 }, (_, k) => `const value_${k} = compute(${i}, ${k}); // line ${k}`);
    if (i % 97 === 0) body.push("// TODO: needle here");
    writeFileSync(join(project, "src", `pkg${i % 50}`, `f${i}.js`), `${body.join("\n")}\n`);
    writeFileSync(join(project, "node_modules", `dep${i % 50}`, `m${i}.js`), "// TODO: needle ignored\n");
  }
  writeFileSync(join(project, ".gitignore"), "node_modules/\n");
  const big = Array.from({ length: 200_000 }, (_, i) => `row ${i}: value = ${i * 7}`).join("\n");
  writeFileSync(join(project, "big.txt"), `${big}\n`);
  execFileSync("git", ["init", "-q"], { cwd: project });
  execFileSync("git", ["add", "-A"], { cwd: project });
  for (const [dir, tools] of [
    [noRg, ["git"]],
    [noTools, []],
  ]) {
    for (const tool of tools)
      symlinkSync(execFileSync("which", [tool], { encoding: "utf8" }).trim(), join(dir, tool));
  }

  const script = `
import json, os, statistics, sys, time
from relm.toolkit.search import grep, glob, tree
from relm.toolkit.files import edit
runs = ${RUNS}
def median(fn):
    times = []
    for _ in range(runs):
        t = time.perf_counter(); out = fn(); times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000, out
res = {}
for label, path in (("rg", os.environ["PATH"]), ("git grep", ${JSON.stringify(noRg)}), ("python", ${JSON.stringify(noTools)})):
    os.environ["PATH"] = path
    ms, out = median(lambda: grep("needle"))
    res[f"grep ({out.backend})"] = (ms, len(out))
    ms, out = median(lambda: grep("value_3[0-9] = compute", max_results=100))
    res[f"grep, many matches ({out.backend})"] = (ms, out.note)
ms, out = median(lambda: glob("**/*.js"))
res["glob('**/*.js')"] = (ms, out.note)
ms, out = median(lambda: tree(".", 2))
res["tree('.', 2)"] = (ms, len(out.splitlines()))
flip = ["row 123456: value = 864192", "row 123456: changed"]
def one_edit():
    out = edit("big.txt", flip[0], flip[1]); flip.reverse(); return out
ms, out = median(one_edit)
res["edit() in a 4.5 MB file"] = (ms, out.splitlines()[0])
print(json.dumps(res))
`;
  const env = { ...process.env, PYTHONPATH: join(ROOT, "python") };
  const out = execFileSync("python3", ["-c", script], { cwd: project, env, encoding: "utf8" });
  console.log(`toolkit on ${FILES} source files (+${FILES} ignored), median of ${RUNS} calls:`);
  for (const [what, [ms, detail]] of Object.entries(JSON.parse(out))) {
    console.log(`  ${what.padEnd(36)} ${ms.toFixed(1).padStart(8)} ms   ${detail}`);
  }
} finally {
  for (const dir of [project, noRg, noTools]) rmSync(dir, { recursive: true, force: true });
}
