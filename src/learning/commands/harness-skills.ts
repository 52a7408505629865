// `relm harness skills [--suggest] [--apply NAME] [--scope S]`: skills from repeated work.
import { join } from "node:path";
import { buildClient } from "../../cli/client.js";
import { EXIT } from "../../cli/exit-codes.js";
import { type ResolvedConfig, resolveConfig } from "../../config/config.js";
import { UsageError } from "../../config/errors.js";
import { findPython } from "../../kernel/index.js";
import { listed, type SkillCandidate, type SmokeTest } from "../skills/mine-package.js";
import { writeDocstring } from "../skills/skill-docstring.js";
import { describeSmokeRun } from "../skills/skill-smoke.js";
import {
  applySkill,
  type DocstringWriter,
  type Suggestions,
  suggestSkills,
} from "../skills/skill-suggest.js";
import { type HarnessContext, loadHarness, revisionSummary } from "../store/index.js";
import { guarded, HarnessCliError, type HarnessIo, harnessContext, type ScopeFlags } from "./harness-cli.js";

interface SkillsFlags extends ScopeFlags {
  suggest?: boolean;
  apply?: string;
  json?: boolean;
}

export function skillsCommand(flags: SkillsFlags, io: HarnessIo): Promise<number> {
  return guarded(io, async () => {
    if (flags.apply !== undefined && flags.apply.trim() === "")
      throw new UsageError("--apply needs a candidate's name");
    if (!flags.suggest && flags.apply === undefined) return listSkills(flags, io);
    if (flags.scope && flags.apply === undefined) {
      throw new UsageError("--scope says where --apply puts a skill; --suggest alone writes nothing");
    }
    if (flags.json && flags.apply !== undefined)
      throw new UsageError("--json goes with --suggest, not --apply");
    const ctx = harnessContext(flags, io);
    const config = resolveConfig(io.env);
    const { python, env } = await kernelPython(config, io.env);
    const found = await suggestSkills(ctx, python.path);
    if (flags.apply === undefined) {
      if (flags.json) io.stdout.write(`${JSON.stringify(asJson(found))}\n`);
      else io.stdout.write(report(found));
      return EXIT.done;
    }
    return apply(found, flags.apply, flags.scope ?? "project", ctx, io, { config, python, env });
  });
}

/** The interpreter kernels run on: it reads the cells (python/relm/skillmine) and runs the smoke test. */
async function kernelPython(config: ResolvedConfig, ioEnv: NodeJS.ProcessEnv) {
  const env = config.python ? { ...ioEnv, RELM_PYTHON: config.python } : ioEnv;
  try {
    return { python: await findPython(env, join(config.home, "cache")), env };
  } catch (error) {
    throw new HarnessCliError(`mining skills needs Python: ${(error as Error).message}`);
  }
}

/** The refine model (the session model when no cheaper one is configured) writes docstrings at --apply. */
function docstringWriter(config: ResolvedConfig): DocstringWriter {
  const model = config.refineModel ?? config.model.model;
  if (!model) return { none: "no model is configured" };
  try {
    const client = buildClient(config, model);
    return (candidate) => writeDocstring(client, candidate);
  } catch (error) {
    return { none: `no model could be set up (${(error as Error).message})` };
  }
}

function listSkills(flags: SkillsFlags, io: HarnessIo): number {
  if (flags.json) throw new UsageError("--json goes with --suggest");
  const ctx = harnessContext(flags, io);
  // The skills a session sees (findSkills), with their use counts.
  const skills = loadHarness(ctx).skills.filter((s) => !flags.scope || s.scope === flags.scope);
  for (const s of skills) {
    const module = s.module ? `import ${s.module}` : "no Python package";
    io.stdout.write(`${s.name}  ${s.scope}  uses ${s.uses}  ${module}  ${s.description}\n`);
  }
  if (skills.length === 0) io.stdout.write("no skills\n");
  io.stdout.write("`relm harness skills --suggest` looks for repeated work that could become one\n");
  return EXIT.done;
}

function report(found: Suggestions): string {
  const out: string[] = [];
  const n = found.candidates.length;
  out.push(
    `${n} skill candidate${n === 1 ? "" : "s"} from ${found.journals} journal(s) of ${found.root}${n > 0 ? ":" : ""}`,
  );
  for (const c of found.candidates) out.push("", ...describeCandidate(c));
  for (const a of found.applied) {
    const where = listed(a.chain.sessions, 5).join(", ");
    out.push(
      "",
      `already applied: the ${a.chain.length}-cell chain of ${where} is skill ${a.skill} (${a.scope} scope)`,
    );
  }
  if (found.skipped.length > 0) out.push("", "repeated, but not proposed:");
  for (const s of found.skipped) {
    const where = listed(
      s.occurrences.map((o) => `${o.session} events ${o.events.join(",")}`),
      5,
    ).join("; ");
    out.push(`  a ${s.length}-cell chain (${where}): ${s.problem}`);
  }
  for (const u of found.unreadable) out.push(`not read: ${u.path}: ${u.reason}`);
  if (n > 0) {
    out.push(
      "",
      "Nothing was written. Apply one with `relm harness skills --apply NAME [--scope project|user|session]`:",
      "the refine model writes its docstring, then its smoke test runs in a fresh forked kernel in a scratch copy of the project.",
    );
  }
  return `${out.join("\n")}\n`;
}

function describeCandidate(c: SkillCandidate): string[] {
  const lines = [`${c.name}(${c.parameters.map((p) => p.name).join(", ")})`, `  ${c.description}`, "  from:"];
  const from = c.chain.occurrences.map((o) => `session ${o.session}, journal events ${o.events.join(", ")}`);
  for (const line of listed(from)) lines.push(`    ${line}`);
  if (c.parameters.length > 0) lines.push("  parameters:");
  for (const p of c.parameters) lines.push(`    ${p.name}: ${p.origin}; recorded ${p.values.join(", ")}`);
  lines.push(`  returns: ${returnsLine(c)}`);
  if ("problem" in c.smoke) lines.push(`  smoke test: none, ${c.smoke.problem}`);
  else {
    const o = c.smoke.occurrence;
    lines.push(
      `  smoke test: ${c.smoke.call} in a scratch copy of the project must print what session ${o.session} recorded (events ${o.events.join(", ")})`,
    );
  }
  lines.push("  code:", ...c.functionSource.split("\n").map((l) => (l ? `    ${l}` : "")));
  return lines;
}

function returnsLine(c: SkillCandidate): string {
  const { kind, expr } = c.returns;
  if (kind === "print") return `${expr} (what the chain's last cell printed)`;
  if (kind === "display") return `${expr} (what the chain's last cell showed)`;
  if (kind === "silent") return `${expr} (the chain's last expression)`;
  if (kind === "assigned") return `${expr} (the last value the chain assigned)`;
  return "None (the chain ends in a statement with no value)";
}

function asJson(found: Suggestions) {
  const occurrences = (c: { occurrences: { session: string; events: number[] }[] }) =>
    c.occurrences.map((o) => ({ session: o.session, events: o.events }));
  return {
    project: found.root,
    journals: found.journals,
    candidates: found.candidates.map((c) => ({
      name: c.name,
      description: c.description,
      parameters: c.parameters.map((p) => ({
        name: p.name,
        origin: p.origin,
        role: p.role,
        values: p.values,
      })),
      sessions: c.chain.sessions,
      occurrences: occurrences(c.chain),
      functionSource: c.functionSource,
      code: c.code,
      docstring: c.docstring,
      returns: c.returns,
      smoke: "problem" in c.smoke ? { problem: c.smoke.problem } : smokeJson(c.smoke),
    })),
    applied: found.applied.map((a) => ({
      skill: a.skill,
      scope: a.scope,
      occurrences: occurrences(a.chain),
    })),
    skipped: found.skipped.map((s) => ({ cells: s.length, occurrences: occurrences(s), problem: s.problem })),
  };
}

/** A smoke test as --json shows it: the recorded run named by session and events, the arguments left out. */
function smokeJson({ occurrence, args: _a, ...test }: SmokeTest) {
  return { ...test, recorded: { session: occurrence.session, events: occurrence.events } };
}

async function apply(
  found: Suggestions,
  name: string,
  scope: NonNullable<SkillsFlags["scope"]>,
  ctx: HarnessContext,
  io: HarnessIo,
  setup: { config: ResolvedConfig; python: Awaited<ReturnType<typeof findPython>>; env: NodeJS.ProcessEnv },
): Promise<number> {
  const candidate = found.candidates.find((c) => c.name === name);
  if (!candidate) {
    const done = found.applied.find((a) => a.skill === name);
    if (done)
      throw new HarnessCliError(
        `${name} is already applied (skill ${done.skill} in the ${done.scope} scope)`,
      );
    const names = found.candidates.map((c) => c.name);
    throw new UsageError(
      names.length > 0
        ? `no skill candidate "${name}"; the candidates are ${names.join(", ")} (relm harness skills --suggest shows them)`
        : `no skill candidate "${name}": no repeated work was found (relm harness skills --suggest)`,
    );
  }
  const result = await applySkill(candidate, scope, ctx, {
    python: setup.python,
    env: setup.env,
    project: found.root,
    docstring: docstringWriter(setup.config),
  });
  if ("refused" in result) throw new HarnessCliError(result.refused);
  const { run, revision, notWritten } = result;
  const test = result.candidate.smoke as Exclude<SkillCandidate["smoke"], { problem: string }>;
  const source = result.candidate.docstringSource;
  const lines = [
    source.by === "model"
      ? `docstring: written by the refine model ${source.model}`
      : `docstring: derived from the chain (${source.note})`,
    ...describeSmokeRun(run, test),
  ];
  if (notWritten) {
    io.stderr.write(
      `${lines.join("\n")}\nrelm: ${name} passed its smoke test but was not applied: ${notWritten}\n`,
    );
    return EXIT.error;
  }
  if (!revision) {
    io.stderr.write(
      `${lines.join("\n")}\nrelm: ${name} was rejected: its smoke test failed; nothing was applied\n`,
    );
    return EXIT.error;
  }
  io.stdout.write(
    `${lines.join("\n")}\napplied ${name} to the ${scope} scope: ${revisionSummary(revision)}\n` +
      `new sessions can \`import ${name}\`; \`relm harness revert ${revision.rev}\` takes it back\n`,
  );
  return EXIT.done;
}
