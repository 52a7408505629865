// What `relm doctor` says about learning's files every session here reads, as doctor lines (cli/doctor/
// check.ts): a skill folder whose SKILL.md is left out, and each damaged line of the revision logs (the
// user's and the project's), which every session leaves out, with its file, line and why; a log that
// cannot be read at all (written by a newer relm) fails.

import { existsSync } from "node:fs";
import { type Check, check } from "../../cli/doctor/check.js";
import {
  describeSkillProblem,
  findSkills,
  type HarnessContext,
  HarnessLogError,
  HarnessStore,
} from "../store/index.js";

/** The `skills` and `harness` lines of relm doctor, in that order. */
export function learningChecks(ctx: Pick<HarnessContext, "cwd" | "home">): Check[] {
  return [...skillChecks(ctx), ...harnessLogChecks(ctx)];
}

function skillChecks(ctx: Pick<HarnessContext, "cwd" | "home">): Check[] {
  const skills = findSkills(ctx);
  if (skills.problems.length === 0)
    return [check("skills", true, `${skills.skills.length} found, none left out`)];
  return skills.problems.map((p) => check("skills", "warn", describeSkillProblem(p)));
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
