// `relm harness skills [--suggest] [--apply NAME] [--scope S]`: skills from repeated work.
import { join } from "node:path";
import { EXIT } from "../../cli/exit-codes.js";
import { resolveConfig } from "../../config/config.js";
import { UsageError } from "../../config/errors.js";
import { findPython } from "../../kernel/index.js";
import { listed, type SkillCandidate } from "../skills/mine-package.js";
import { describeSmokeRun } from "../skills/skill-smoke.js";
import { applyRefusal, applySkill, type Suggestions, suggestSkills } from "../skills/skill-suggest.js";
import { discoverSkills, type HarnessContext, loadHarness, revisionSummary } from "../store/index.js";
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
    const found = suggestSkills(ctx);
    if (flags.apply === undefined) {
      if (flags.json) io.stdout.write(`${JSON.stringify(asJson(found))}\n`);
      else io.stdout.write(report(found));
      return EXIT.done;
    }
    return apply(found, flags.apply, flags.scope ?? "project", ctx, io);
  });
}

function listSkills(flags: SkillsFlags, io: HarnessIo): number {
  if (flags.json) throw new UsageError("--json goes with --suggest");
  const ctx = harnessContext(flags, io);
  const uses = new Map(loadHarness(ctx).skills.map((s) => [s.dir, s.uses]));
  const skills = discoverSkills(ctx).filter((s) => !flags.scope || s.scope === flags.scope);
  for (const s of skills) {
    const module = s.module ? `import ${s.module}` : "no Python package";
    io.stdout.write(`${s.name}  ${s.scope}  uses ${uses.get(s.dir) ?? 0}  ${module}  ${s.description}\n`);
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
      "its smoke test runs first, in a fresh forked kernel.",
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
  if ("problem" in c.smoke) lines.push(`  smoke test: none, ${c.smoke.problem}`);
  else {
    const o = c.smoke.occurrence;
    lines.push(
      `  smoke test: ${c.smoke.call} must print what session ${o.session} recorded (events ${o.events.join(", ")})`,
    );
  }
  lines.push("  code:", ...c.functionSource.split("\n").map((l) => (l ? `    ${l}` : "")));
  return lines;
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
      parameters: c.parameters.map((p) => ({ name: p.name, origin: p.origin, values: p.values })),
      sessions: c.chain.sessions,
      occurrences: occurrences(c.chain),
      functionSource: c.functionSource,
      code: c.code,
      smoke:
        "problem" in c.smoke
          ? { problem: c.smoke.problem }
          : {
              call: c.smoke.call,
              cell: c.smoke.cell,
              expected: c.smoke.expected,
              inputs: c.smoke.inputs,
              recorded: { session: c.smoke.occurrence.session, events: c.smoke.occurrence.events },
            },
    })),
    applied: found.applied.map((a) => ({
      skill: a.skill,
      scope: a.scope,
      occurrences: occurrences(a.chain),
    })),
    skipped: found.skipped.map((s) => ({ cells: s.length, occurrences: occurrences(s), problem: s.problem })),
  };
}

async function apply(
  found: Suggestions,
  name: string,
  scope: NonNullable<SkillsFlags["scope"]>,
  ctx: HarnessContext,
  io: HarnessIo,
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
  const refusal = applyRefusal(candidate, scope, ctx);
  if (refusal) throw new HarnessCliError(refusal);
  const config = resolveConfig(io.env);
  const env = config.python ? { ...io.env, RELM_PYTHON: config.python } : io.env;
  let python: Awaited<ReturnType<typeof findPython>>;
  try {
    python = await findPython(env, join(config.home, "cache"));
  } catch (error) {
    throw new HarnessCliError(`the smoke test needs Python: ${(error as Error).message}`);
  }
  const { run, revision, notWritten } = await applySkill(candidate, scope, ctx, { python, env });
  const test = candidate.smoke as Exclude<SkillCandidate["smoke"], { problem: string }>;
  const lines = describeSmokeRun(run, test);
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
