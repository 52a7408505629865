// Skills from repeated work: mine the project's sessions, package each repeated chain as a skill
// candidate, and apply one (as a harness revision) once the refine model wrote its docstring and its smoke
// test passed in a forked kernel in a scratch copy of the project.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PYTHON_KEYWORDS } from "../../agent/core/variables.js";
import type { PythonInfo } from "../../kernel/types.js";
import {
  checkName,
  entriesOf,
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
import { chainSignature, listed, packageChains, type SkillCandidate, withDocstring } from "./mine-package.js";
import { analyseCells } from "./mine-python.js";
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

/** Mines the project's sessions; `python` (the interpreter relm found) reads the cells' code. */
export async function suggestSkills(ctx: HarnessContext, python: string): Promise<Suggestions> {
  const mined = projectSessions(ctx.home, ctx.cwd);
  const analysed = await analyseCells(
    python,
    mined.sessions.flatMap((s) => s.cells.map((c) => c.code)),
  );
  const { chains, skipped } = mineChains(mined.sessions, analysed);
  const harness = loadHarness(ctx);
  const skills = harness.entries.filter((e) => e.kind === "skill");
  const taken = new Set<string>([
    // Python's keywords: never a skill's name (its package could not be imported).
    ...PYTHON_KEYWORDS,
    ...skills.map((e) => e.title),
    ...harness.skills.map((s) => s.module ?? s.name),
  ]);
  const applied: Suggestions["applied"] = [];
  const fresh: Chain[] = [];
  for (const chain of chains) {
    const signature = chainSignature(chain);
    const done = skills.find((e) => e.code?.includes(`relm-chain: ${signature}`));
    if (done) applied.push({ skill: done.title, scope: done.scope, chain });
    else fresh.push(chain);
  }
  const { candidates, failed } = await packageChains(python, fresh, taken, existsSync);
  return {
    root: mined.root,
    journals: mined.sessions.length,
    candidates,
    skipped: [...skipped, ...failed],
    applied,
    unreadable: mined.unreadable,
  };
}

/** Why `candidate` cannot go into `scope`, or undefined. Checked before the smoke test runs. */
function applyRefusal(candidate: SkillCandidate, scope: Scope, ctx: HarnessContext): string | undefined {
  const bad = checkName("skill", candidate.name);
  if (bad) return bad;
  if ("problem" in candidate.smoke) return `${candidate.name} is not applied: ${candidate.smoke.problem}`;
  const location = scopeLocation(scope, ctx);
  const store = new HarnessStore(location);
  const entries = entriesOf(store.state());
  const room = overLimit(
    "skill",
    scope,
    usageOf(entries, "skill"),
    { added: 1, grow: candidate.description.length },
    roomHint(location),
  );
  if (room) return room;
  if (entries.some((e) => e.kind === "skill" && e.title === candidate.name)) {
    return `the ${scope} scope already has a skill named ${candidate.name}`;
  }
  if (existsSync(join(location.skillsDir, candidate.name))) {
    return `a folder ${join(location.skillsDir, candidate.name)} exists that the harness does not manage; remove or rename it`;
  }
  return undefined;
}

interface ApplyResult {
  /** The candidate as applied (or tested): with its final docstring. */
  candidate: SkillCandidate;
  run: SmokeRun;
  /** Set when the smoke test passed and the skill was written. */
  revision?: Revision;
  /** Why a skill whose smoke test passed was not written (the scope filled up meanwhile). */
  notWritten?: string;
}

/** Who writes the docstring at --apply: a function asking the refine model, or why none is asked. */
export type DocstringWriter =
  | ((candidate: SkillCandidate) => Promise<{ text: string; model: string } | { error: string }>)
  | { none: string };

interface ApplyOptions {
  python: PythonInfo;
  env: NodeJS.ProcessEnv;
  /** The project copied for the smoke test. */
  project: string;
  docstring: DocstringWriter;
}

/**
 * Has the refine model write the candidate's docstring (else keeps the one derived from the chain, saying
 * why), runs its smoke test in a scratch copy of the project and, only if it passes, adds the skill to
 * `scope` as one revision whose evidence is the cells it was mined from.
 */
export async function applySkill(
  original: SkillCandidate,
  scope: Scope,
  ctx: HarnessContext,
  options: ApplyOptions,
): Promise<ApplyResult | { refused: string }> {
  // Checked before the model and the smoke test are asked anything.
  const refused = applyRefusal(original, scope, ctx);
  if (refused) return { refused };
  const written =
    "none" in options.docstring ? { error: options.docstring.none } : await options.docstring(original);
  const candidate = await withDocstring(
    options.python.path,
    original,
    "text" in written ? written : { note: written.error },
    existsSync,
  );
  if ("problem" in candidate.smoke) throw new Error(`${candidate.name}: ${candidate.smoke.problem}`);
  const test = candidate.smoke;
  const run = await runSmokeTest({
    python: options.python,
    env: options.env,
    name: candidate.name,
    code: candidate.code,
    test,
    project: options.project,
    relmHome: ctx.home,
    skillPaths: loadHarness(ctx).skillPaths,
  });
  if (!run.passed) return { candidate, run };
  const { chain } = candidate;
  const first = chain.occurrences[0];
  const sessions = listed(chain.occurrences.map((o) => `${o.session} (events ${o.events.join(", ")})`)).join(
    "; ",
  );
  const store = HarnessStore.of(scope, ctx);
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
    reason: `skill ${candidate.name} from repeated work; smoke test ${test.call} passed in a scratch copy of the project`,
    evidence: first ? { session: first.session, events: first.events } : null,
  });
  return {
    candidate,
    run,
    revision,
    ...(revision ? {} : { notWritten: dropped[0]?.reason ?? "nothing to write" }),
  };
}
