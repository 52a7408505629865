// What `relm doctor` says about the revision logs every session here reads (the user's and the
// project's): each damaged line, which every session leaves out, with its file, line and why; a log
// that cannot be read at all (written by a newer relm) fails.

import { existsSync } from "node:fs";
import { HarnessLogError } from "./log-read.js";
import { HarnessStore } from "./store.js";
import type { HarnessContext } from "./types.js";

interface LogHealth {
  ok: boolean | "warn";
  detail: string;
}

export function harnessLogHealth(ctx: Pick<HarnessContext, "cwd" | "home">): LogHealth[] {
  const out: LogHealth[] = [];
  const whole: string[] = [];
  for (const scope of ["user", "project"] as const) {
    const store = HarnessStore.of(scope, ctx);
    if (!existsSync(store.logPath)) continue;
    try {
      const problems = store.problems();
      if (problems.length === 0) whole.push(`${scope} ${store.revisions().length} revision(s)`);
      for (const p of problems) {
        const detail = `${store.logPath}:${p.line}: ${p.reason}; left out of every session (repair or delete the line)`;
        out.push({ ok: "warn", detail });
      }
    } catch (error) {
      if (!(error instanceof HarnessLogError)) throw error;
      out.push({ ok: false, detail: error.message });
    }
  }
  if (out.length > 0) return out;
  return [
    { ok: true, detail: whole.length > 0 ? `${whole.join(", ")}, no damaged lines` : "no revision logs yet" },
  ];
}
