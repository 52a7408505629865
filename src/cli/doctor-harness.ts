// `relm doctor`'s lines about the harness logs every session here reads (the user's and the project's):
// damaged lines are left out of every session, so each is named with its file, line and why; a log that
// cannot be read at all (written by a newer relm) is a failure.

import { existsSync } from "node:fs";
import { HarnessLogError, HarnessStore, scopeLocation } from "../learning/store/index.js";

export function harnessChecks(
  cwd: string,
  home: string,
): { ok: boolean | "warn"; label: string; detail: string }[] {
  const checks: { ok: boolean | "warn"; label: string; detail: string }[] = [];
  const whole: string[] = [];
  for (const scope of ["user", "project"] as const) {
    const store = new HarnessStore(scopeLocation(scope, { cwd, home }));
    if (!existsSync(store.logPath)) continue;
    try {
      const problems = store.problems();
      if (problems.length === 0) whole.push(`${scope} ${store.revisions().length} revision(s)`);
      for (const p of problems)
        checks.push({
          ok: "warn",
          label: "harness",
          detail: `${store.logPath}:${p.line}: ${p.reason}; left out of every session (repair or delete the line)`,
        });
    } catch (error) {
      if (!(error instanceof HarnessLogError)) throw error;
      checks.push({ ok: false, label: "harness", detail: error.message });
    }
  }
  if (checks.length === 0)
    checks.unshift({
      ok: true,
      label: "harness",
      detail: whole.length > 0 ? `${whole.join(", ")}, no damaged lines` : "no revision logs yet",
    });
  return checks;
}
