import { LIMITS } from "./limits.js";
import type { SkillInfo } from "./skills.js";
import { type Entry, type EntryKind, type EntryState, SCOPES } from "./types.js";

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

/**
 * The harness block that follows the base system prompt: instructions, memories, skills and specs, in
 * that order, each within its kind's limits. Empty when there is nothing to say.
 */
export function renderHarness(
  entries: readonly EntryState[],
  skills: readonly (SkillInfo & { uses?: number })[],
): string {
  const byUse = (a: EntryState, b: EntryState) => b.uses - a.uses || b.updated.localeCompare(a.updated);
  const sections: string[] = [];
  for (const kind of ["prompt", "memory"] as const) {
    const all = entries.filter((e) => e.kind === kind).sort(stableEntryOrder);
    const kept = pick(all, kind, (e) => entryLine(e).length, byUse);
    const text = section(kind, kept.map(entryLine), all.length - kept.length);
    if (text) sections.push(text);
  }
  const sortedSkills = [...skills].sort((a, b) => a.name.localeCompare(b.name));
  const keptSkills = pick(
    sortedSkills,
    "skill",
    (s) => skillLine(s).length,
    (a, b) => (b.uses ?? 0) - (a.uses ?? 0),
  );
  const skillText = section("skill", keptSkills.map(skillLine), sortedSkills.length - keptSkills.length);
  if (skillText) sections.push(skillText);
  const agents = entries.filter((e) => e.kind === "agent").sort(stableEntryOrder);
  const keptAgents = pick(agents, "agent", (e) => entryLine(e).length, byUse);
  const agentText = section("agent", keptAgents.map(entryLine), agents.length - keptAgents.length);
  if (agentText) sections.push(agentText);
  if (sections.length === 0) return "";
  return `# Harness\nLessons, skills and specs kept from earlier work on this project; follow them unless the user says otherwise.\n\n${sections.join("\n\n")}`;
}
