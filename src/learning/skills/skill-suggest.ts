// Skills from repeated work: mine the project's sessions, package each repeated chain as a skill
// candidate, and apply one (as a harness revision) once its smoke test passed in a forked kernel.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { PythonInfo } from "../../kernel/types.js";
import {
  checkName,
  discoverSkills,
  type HarnessContext,
  HarnessStore,
  loadHarness,
  overLimit,
  type Revision,
  roomHint,
  type Scope,
  scopeLocation,
  usageOf,
} from "../store/index.js";
import { type Chain, mineChains } from "./mine-chains.js";
import { chainSignature, listed, packageChain, type SkillCandidate } from "./mine-package.js";
import { KEYWORDS } from "./mine-tokens.js";
import { runSmokeTest, type SmokeRun } from "./skill-smoke.js";
import { projectSessions } from "./skill-sources.js";

export interface Suggestions {
  /** The project whose sessions were mined. */
  root: string;
  /** Journals read (sessions and their child agents). */
  journals: number;
  candidates: SkillCandidate[];
  /** Repeated chains no skill is proposed for, each with `problem`. */
  skipped: Chain[];
  /** Candidates already applied: their chain's signature is in an existing skill's code. */
  applied: { skill: string; scope: Scope; chain: Chain }[];
  unreadable: { path: string; reason: string }[];
}

export function suggestSkills(ctx: HarnessContext): Suggestions {
  const mined = projectSessions(ctx.home, ctx.cwd);
  const { chains, skipped } = mineChains(mined.sessions);
  const harness = loadHarness(ctx);
  const skills = harness.entries.filter((e) => e.kind === "skill");
  const taken = new Set<string>([
    ...KEYWORDS,
    ...skills.map((e) => e.title),
    ...discoverSkills(ctx).map((s) => s.module ?? s.name),
  ]);
  const candidates: SkillCandidate[] = [];
  const applied: Suggestions["applied"] = [];
  for (const chain of chains) {
    const first = chain.occurrences[0];
    const session = mined.sessions.find((s) => s.id === first?.session);
    const sources = chain.cells.map((_, i) => session?.cells[(first?.start ?? 0) + i]?.code ?? "");
    const signature = chainSignature(chain);
    const done = skills.find((e) => e.code?.includes(`relm-chain: ${signature}`));
    if (done) {
      applied.push({ skill: done.title, scope: done.scope, chain });
      continue;
    }
    const candidate = packageChain(chain, sources, taken, existsSync);
    taken.add(candidate.name);
    candidates.push(candidate);
  }
  return {
    root: mined.root,
    journals: mined.sessions.length,
    candidates,
    skipped,
    applied,
    unreadable: mined.unreadable,
  };
}

/** Why `candidate` cannot go into `scope`, or undefined. Checked before the smoke test runs. */
export function applyRefusal(
  candidate: SkillCandidate,
  scope: Scope,
  ctx: HarnessContext,
): string | undefined {
  const bad = checkName("skill", candidate.name);
  if (bad) return bad;
  if ("problem" in candidate.smoke) return `${candidate.name} is not applied: ${candidate.smoke.problem}`;
  const location = scopeLocation(scope, ctx);
  const store = new HarnessStore(location);
  const entries = [...store.state().values()].map((s) => s.entry);
  const skills = entries.filter((e) => e.kind === "skill");
  const room = overLimit(
    "skill",
    scope,
    usageOf(entries, "skill"),
    { added: 1, grow: candidate.description.length },
    roomHint(location),
  );
  if (room) return room;
  if (skills.some((e) => e.title === candidate.name)) {
    return `the ${scope} scope already has a skill named ${candidate.name}`;
  }
  if (existsSync(join(location.skillsDir, candidate.name))) {
    return `a folder ${join(location.skillsDir, candidate.name)} exists that the harness does not manage; remove or rename it`;
  }
  return undefined;
}

interface ApplyResult {
  run: SmokeRun;
  /** Set when the smoke test passed and the skill was written. */
  revision?: Revision;
  /** Why a skill whose smoke test passed was not written (the scope filled up meanwhile). */
  notWritten?: string;
}

/**
 * Runs the candidate's smoke test in a fresh forked kernel and, only if it passes, adds the skill to
 * `scope` as one revision whose evidence is the cells it was mined from.
 */
export async function applySkill(
  candidate: SkillCandidate,
  scope: Scope,
  ctx: HarnessContext,
  kernel: { python: PythonInfo; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ApplyResult> {
  const refusal = applyRefusal(candidate, scope, ctx);
  if (refusal || "problem" in candidate.smoke) throw new Error(refusal ?? "no smoke test");
  const test = candidate.smoke;
  const run = await runSmokeTest({
    python: kernel.python,
    env: kernel.env,
    name: candidate.name,
    code: candidate.code,
    test,
    skillPaths: loadHarness(ctx).skillPaths,
    timeoutMs: kernel.timeoutMs,
  });
  if (!run.passed) return { run };
  const { chain } = candidate;
  const first = chain.occurrences[0];
  const sessions = listed(chain.occurrences.map((o) => `${o.session} (events ${o.events.join(", ")})`)).join(
    "; ",
  );
  const store = new HarnessStore(scopeLocation(scope, ctx));
  const { revision, dropped } = store.commit({
    intents: [
      {
        op: "add",
        kind: "skill",
        title: candidate.name,
        content: candidate.description,
        code: candidate.code,
        source: "refine",
        evidence: first?.events,
        reason: `a ${chain.length}-cell chain repeated ${chain.occurrences.length} times: ${sessions}`,
        hypothesis: `work that repeats this ${chain.length}-cell chain takes one call of ${candidate.name}() instead, with fewer cells and errors`,
      },
    ],
    author: "relm harness skills",
    reason: `skill ${candidate.name} from repeated work; smoke test ${test.call} passed in a forked kernel`,
    evidence: first ? { session: first.session, events: first.events } : null,
  });
  return { run, revision, ...(revision ? {} : { notWritten: dropped[0]?.reason ?? "nothing to write" }) };
}
