import { LIMITS } from "./limits.js";
import type { SkillInfo } from "./skills.js";
import { type Entry, type EntryKind, type EntryState, KINDS, SCOPES } from "./types.js";

const HEADINGS: Record<EntryKind, string> = {
  prompt: "## Instructions",
  memory:
    "## Memories\nWhen one of these helps you, cite its id (e.g. [mem-…]) in your reply or a code comment.",
  skill:
    "## Skills\nPython packages importable in every cell with no install: `import NAME`, then `help(NAME)`.",
  agent: '## Sub-agent specs\nStart one with rlm.spawn(task, spec="NAME") or rlm(task, spec="NAME").',
};

function cap(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars - 1)}…`;
}

function bullet(head: string, text: string): string {
  return `- ${head}${text.trim().split("\n").join("\n  ")}`;
}

/**
 * Keeps at most the kind's count and total size, preferring entries used most and then the newest;
 * the kept ones are printed in a stable order (scope, then creation) so an unchanged harness renders
 * the same bytes in every session.
 */
function pick<T>(items: T[], kind: EntryKind, size: (t: T) => number, rank: (a: T, b: T) => number): T[] {
  const { count, total } = LIMITS[kind];
  const kept = new Set<T>();
  let used = 0;
  for (const item of [...items].sort(rank)) {
    if (kept.size >= count) break;
    const n = size(item);
    if (used + n > total) continue;
    kept.add(item);
    used += n;
  }
  return items.filter((i) => kept.has(i));
}

function stableEntryOrder(a: EntryState, b: EntryState): number {
  return (
    SCOPES.indexOf(a.scope) - SCOPES.indexOf(b.scope) ||
    a.created.localeCompare(b.created) ||
    a.id.localeCompare(b.id)
  );
}

function entryLine(e: Entry): string {
  const text = cap(e.content, LIMITS[e.kind].chars);
  if (e.kind === "agent") return bullet(`${e.title}: `, text.split("\n")[0] ?? "");
  return bullet(`[${e.id}] ${e.title ? `${e.title}: ` : ""}`, text);
}

/**
 * The line an entry is rendered as in the prompt block (a skill's without its import hint): the mark a
 * journaled system prompt carries while that version of the entry is in force.
 */
export function renderedLine(e: Entry): string {
  if (e.kind === "skill") return `- ${e.title}: ${cap(e.content, LIMITS.skill.chars)}`;
  return entryLine(e);
}

function skillLine(s: SkillInfo): string {
  const how = s.module ? `import ${s.module}` : `instructions in ${s.dir}/SKILL.md`;
  return `- ${s.name}: ${cap(s.description, LIMITS.skill.chars)} (${how})`;
}

function section(kind: EntryKind, lines: string[], hidden: number): string | undefined {
  if (lines.length === 0) return undefined;
  const more =
    hidden > 0 ? `\n(${hidden} more not shown: \`relm harness log --stale\` helps prune them)` : "";
  return `${HEADINGS[kind]}\n${lines.join("\n")}${more}`;
}

/** The heading of lessons carried forward from earlier sessions (docs/harness.md, "Probation"). */
export const PROBATION_HEADING = "## Lessons on probation (learnt here recently, not yet shown to help)";
const PROBATION_NOTE =
  "Earlier sessions in this project learnt these; relm keeps the ones the work shows to help and drops the others. Follow them where they apply, and cite the id of one that helps.";

/**
 * The harness block that follows the base system prompt: instructions, memories, skills and specs, in
 * that order, each within its kind's limits, then the lessons on probation under their own heading (so
 * the model knows they are unproven). Empty when there is nothing to say.
 */
export function renderHarness(
  all: readonly EntryState[],
  allSkills: readonly (SkillInfo & { uses?: number })[],
): string {
  const entries = all.filter((e) => e.scope !== "probation");
  const skills = allSkills.filter((s) => s.scope !== "probation");
  const byUse = (a: EntryState, b: EntryState) => b.uses - a.uses || b.updated.localeCompare(a.updated);
  const sections: (string | undefined)[] = KINDS.map((kind) => {
    if (kind === "skill") {
      const sorted = [...skills].sort((a, b) => a.name.localeCompare(b.name));
      const kept = pick(
        sorted,
        kind,
        (s) => skillLine(s).length,
        (a, b) => (b.uses ?? 0) - (a.uses ?? 0),
      );
      return section(kind, kept.map(skillLine), sorted.length - kept.length);
    }
    const of = entries.filter((e) => e.kind === kind).sort(stableEntryOrder);
    const kept = pick(of, kind, (e) => entryLine(e).length, byUse);
    return section(kind, kept.map(entryLine), of.length - kept.length);
  });
  sections.push(
    probationSection(
      all.filter((e) => e.scope === "probation"),
      allSkills.filter((s) => s.scope === "probation"),
      byUse,
    ),
  );
  const text = sections.filter((s) => s !== undefined);
  if (text.length === 0) return "";
  return `# Harness\nLessons, skills and specs kept from earlier work on this project; follow them unless the user says otherwise.\n\n${text.join("\n\n")}`;
}

/** Lessons on probation, each kind within its limits, a skill as its folder says (how to import it). */
function probationSection(
  entries: readonly EntryState[],
  skills: readonly SkillInfo[],
  byUse: (a: EntryState, b: EntryState) => number,
): string | undefined {
  const lines: string[] = [];
  let hidden = 0;
  for (const kind of KINDS) {
    const of = entries.filter((e) => e.kind === kind).sort(stableEntryOrder);
    const line = (e: EntryState) => {
      const folder = kind === "skill" ? skills.find((s) => s.entryId === e.id) : undefined;
      return folder ? skillLine(folder) : kind === "skill" ? renderedLine(e) : entryLine(e);
    };
    const kept = pick(of, kind, (e) => line(e).length, byUse);
    lines.push(...kept.map(line));
    hidden += of.length - kept.length;
  }
  if (lines.length === 0) return undefined;
  const more = hidden > 0 ? `\n(${hidden} more on probation not shown)` : "";
  return `${PROBATION_HEADING}\n${PROBATION_NOTE}\n${lines.join("\n")}${more}`;
}
