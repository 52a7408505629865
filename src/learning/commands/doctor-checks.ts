// What `relm doctor` says about learning's files every session here reads, as doctor lines (cli/doctor/
// check.ts): a skill folder whose SKILL.md is left out, a skill whose `import NAME` gives another module
// (python/relm/skillpath.py, asked of the kernels' Python), and each damaged line of the revision logs (the
// user's and the project's), which every session leaves out, with its file, line and why; a log that
// cannot be read at all (written by a newer relm) fails.

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { type Check, check } from "../../cli/doctor/check.js";
import { HOST_PYTHON_PRELUDE, scrubEnvironment } from "../../kernel/index.js";
import {
  describeSkillProblem,
  findSkills,
  type HarnessContext,
  HarnessLogError,
  HarnessStore,
} from "../store/index.js";

/** The kernels' interpreter and environment (before relm adds its own): where skills are imported. */
interface KernelPython {
  path: string;
  env: NodeJS.ProcessEnv;
}

/** The `skills` and `harness` lines of relm doctor, in that order. */
export function learningChecks(ctx: Pick<HarnessContext, "cwd" | "home">, python?: KernelPython): Check[] {
  return [...skillChecks(ctx, python), ...harnessLogChecks(ctx)];
}

function skillChecks(ctx: Pick<HarnessContext, "cwd" | "home">, python?: KernelPython): Check[] {
  const skills = findSkills(ctx);
  const folders = skills.skills.filter((s) => s.module).map((s) => s.dir);
  const unused = python && folders.length > 0 ? unusedSkills(python, ctx.cwd, folders) : [];
  if (skills.problems.length === 0 && unused.length === 0)
    return [check("skills", true, `${skills.skills.length} found, none left out`)];
  return [
    ...skills.problems.map((p) => check("skills", "warn", describeSkillProblem(p))),
    ...unused.map((line) => check("skills", "warn", line)),
  ];
}

// What a kernel started here would say at its start (python/relm/runner.py), without starting one. The
// project goes first on sys.path, as in a kernel, only once relm's own imports are done: before that a
// module planted there (json.py) would run on the host (HOST_PYTHON_PRELUDE); find_spec runs nothing.
const UNUSED_SCRIPT = `${HOST_PYTHON_PRELUDE}import json, os, importlib.util
from relm import skillpath
sys.path.insert(0, os.getcwd())
print(json.dumps(skillpath.unused(sys.argv[1:])))`;

/** Skills the kernels' Python would not import (a module of the same name comes first), one line each. */
function unusedSkills(python: KernelPython, cwd: string, folders: string[]): string[] {
  const done = spawnSync(python.path, ["-c", UNUSED_SCRIPT, ...folders], {
    cwd,
    env: scrubEnvironment(python.env),
    encoding: "utf8",
    timeout: 30_000,
  });
  try {
    const lines: unknown = JSON.parse(done.stdout);
    return Array.isArray(lines) ? lines.filter((l): l is string => typeof l === "string") : [];
  } catch {
    return []; // the python line of doctor already says what is wrong with the interpreter
  }
}

function harnessLogChecks(ctx: Pick<HarnessContext, "cwd" | "home">): Check[] {
  const out: Check[] = [];
  const whole: string[] = [];
  for (const scope of ["user", "project"] as const) {
    const store = HarnessStore.of(scope, ctx);
    if (!existsSync(store.logPath)) continue;
    try {
      const problems = store.problems();
      if (problems.length === 0) whole.push(`${scope} ${store.revisions().length} revision(s)`);
      for (const p of problems) {
        const detail = `${store.logPath}:${p.line}: ${p.reason}; left out of every session (repair or delete the line)`;
        out.push(check("harness", "warn", detail));
      }
    } catch (error) {
      if (!(error instanceof HarnessLogError)) throw error;
      out.push(check("harness", false, error.message));
    }
  }
  if (out.length > 0) return out;
  const detail = whole.length > 0 ? `${whole.join(", ")}, no damaged lines` : "no revision logs yet";
  return [check("harness", true, detail)];
}
