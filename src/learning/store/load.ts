import { describeLogProblems } from "./log-read.js";
import { renderHarness } from "./render.js";
import { describeSkillProblem, findSkills, type SkillInfo } from "./skills.js";
import { HarnessStore } from "./store.js";
import { type EntryState, type HarnessContext, SCOPES, type Scope } from "./types.js";

export interface LoadedHarness {
  /** Rendered once, placed right after the base system prompt. */
  block: string;
  /** Skill folders with a Python package, most specific first: put them on the kernels' PYTHONPATH. */
  skillPaths: string[];
  skills: (SkillInfo & { uses: number })[];
  /**
   * One line per SKILL.md left out (bad front matter) and per revision log with damaged lines (left out):
   * a session warns about them at its start.
   */
  problems: string[];
  /** Every entry of the scopes that exist for `ctx`. */
  entries: EntryState[];
  /** The entries on probation the prompt carries (learnt by earlier sessions of the project). */
  probation: EntryState[];
}

/** The stores visible from `ctx`: user, project and probation always, the session's when there is one. */
export function openStores(ctx: HarnessContext): HarnessStore[] {
  return SCOPES.filter((s) => s !== "session" || ctx.sessionDir).map((s) => HarnessStore.of(s, ctx));
}

/** Skill use counts live in the scope the skill folder belongs to. */
export function skillUseKey(skill: Pick<SkillInfo, "module" | "name">): string {
  return `skill:${skill.module ?? skill.name}`;
}

/**
 * The harness as a new agent tree sees it. For a new session the session scope is empty by definition
 * (it lives in the session's own folder), so callers pass `sessionDir` only for an existing session.
 */
export function loadHarness(ctx: HarnessContext): LoadedHarness {
  const stores = openStores(ctx);
  const seen = new Set<string>();
  const entries: EntryState[] = [];
  const uses = new Map<Scope, Map<string, number>>();
  const damaged: string[] = [];
  // The session that learnt a lesson shows it as its own, not as on probation.
  const own = new Set(
    stores
      .find((s) => s.scope === "session")
      ?.state()
      .keys() ?? [],
  );
  for (const store of stores) {
    const problems = store.problems();
    if (problems.length > 0) damaged.push(describeLogProblems(store.logPath, problems));
    uses.set(store.scope, store.useCounts());
    for (const entry of store.entries()) {
      // The same lesson exported to a wider scope is shown once.
      if (seen.has(entry.id) || (entry.scope === "probation" && own.has(entry.id))) continue;
      seen.add(entry.id);
      entries.push(entry);
    }
  }
  const found = findSkills(ctx);
  const skills = found.skills.map((s) => ({
    ...s,
    uses: uses.get(s.scope)?.get(skillUseKey(s)) ?? 0,
  }));
  return {
    block: renderHarness(entries, skills),
    skillPaths: skills.filter((s) => s.module).map((s) => s.dir),
    skills,
    problems: [...damaged, ...found.problems.map(describeSkillProblem)],
    entries,
    probation: entries.filter((e) => e.scope === "probation"),
  };
}
