import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { FileShapeError, PROJECT_FILE_BYTES, readBoundedText } from "../../config/bounded-read.js";
import { yamlLib } from "../../config/lazy.js";
import { skillModuleOf } from "../../kernel/skill-shadow.js";
import { agentsSkillsDir, scopeLocation } from "./paths.js";
import { markerOf } from "./skill-files.js";
import type { HarnessContext, Scope } from "./types.js";

/** A skill folder: SKILL.md (Agent Skills front matter) and maybe a Python package beside it. */
export interface SkillInfo {
  name: string;
  description: string;
  /** The folder; it goes on the kernels' PYTHONPATH when it has a package. */
  dir: string;
  scope: Scope;
  /** The module `import` finds, when the folder has a package or module of the skill's name. */
  module?: string;
  /** The harness entry it was written from, if any. */
  entryId?: string;
}

/** What a SKILL.md says about its skill, or what is wrong with it (the message names the line). */
type SkillFileCheck = { name?: string; description: string } | { problem: string };

/**
 * Reads SKILL.md's front matter (Agent Skills: `---`, YAML with `description` and maybe `name`, `---`).
 * Undefined when there is no SKILL.md at all (the folder is not a skill).
 */
export function checkSkillFile(path: string): SkillFileCheck | undefined {
  let text: string;
  try {
    text = readBoundedText(path, PROJECT_FILE_BYTES);
  } catch (error) {
    if (error instanceof FileShapeError) return { problem: error.message.replace(`${path} is`, "is") };
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT"
      ? undefined
      : { problem: `cannot be read (${code ?? (error as Error).message})` };
  }
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match) return { problem: "has no front matter: it must start with a line `---`, YAML, and `---`" };
  let front: unknown;
  try {
    front = yamlLib().parse(match[1] as string);
  } catch (error) {
    // The YAML starts on the file's second line.
    const at = (error as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    const reason = ((error as Error).message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
    return { problem: `front matter${at ? ` line ${at + 1}` : ""} is not valid YAML: ${reason}` };
  }
  if (front === null || typeof front !== "object" || Array.isArray(front))
    return { problem: "front matter must be a YAML mapping with a description" };
  const f = front as Record<string, unknown>;
  if (f.description === undefined)
    return { problem: "front matter has no description (the model is shown it)" };
  if (typeof f.description !== "string" || !f.description.trim())
    return { problem: "front matter's description must be non-empty text" };
  if (f.name !== undefined && (typeof f.name !== "string" || !f.name.trim()))
    return { problem: "front matter's name must be non-empty text (or left out: the folder's name is used)" };
  return { name: typeof f.name === "string" ? f.name.trim() : undefined, description: f.description.trim() };
}

/** A SKILL.md that relm cannot use: the skill is left out, and this says why. */
interface SkillProblem {
  /** The SKILL.md file. */
  path: string;
  scope: Scope;
  problem: string;
}

function scan(root: string, scope: Scope): { skills: SkillInfo[]; problems: SkillProblem[] } {
  const skills: SkillInfo[] = [];
  const problems: SkillProblem[] = [];
  if (!existsSync(root)) return { skills, problems };
  for (const folder of readdirSync(root).sort()) {
    const dir = join(root, folder);
    const path = join(dir, "SKILL.md");
    const front = checkSkillFile(path);
    if (!front) continue;
    if ("problem" in front) {
      problems.push({ path, scope, problem: front.problem });
      continue;
    }
    const module = skillModuleOf(folder);
    const hasModule = existsSync(join(dir, module, "__init__.py")) || existsSync(join(dir, `${module}.py`));
    skills.push({
      name: front.name || folder,
      description: front.description.replace(/\s+/g, " "),
      dir,
      scope,
      module: hasModule ? module : undefined,
      entryId: markerOf(dir),
    });
  }
  return { skills, problems };
}

function skillRoots(ctx: HarnessContext): [string, Scope][] {
  const roots: [string, Scope][] = [];
  if (ctx.sessionDir) roots.push([scopeLocation("session", ctx).skillsDir, "session"]);
  roots.push([scopeLocation("project", ctx).skillsDir, "project"]);
  roots.push([agentsSkillsDir(ctx.cwd), "project"]);
  roots.push([scopeLocation("probation", ctx).skillsDir, "probation"]);
  roots.push([scopeLocation("user", ctx).skillsDir, "user"]);
  return roots;
}

/** `path: problem`, one line per SKILL.md left out: what a session warns about at its start. */
export function describeSkillProblem(p: SkillProblem): string {
  return `skill ${p.path} is left out: ${p.problem}`;
}

/**
 * Every skill visible from `ctx`, most specific first: the session's, the project's (.relm/skills, then
 * .agents/skills), those on probation, the user's ($RELM_HOME/skills). A name already seen shadows later ones, in the same
 * order as PYTHONPATH, so the skill listed is the one `import` finds. With them, every SKILL.md left out
 * because it cannot be read as a skill: reported, never dropped in silence.
 */
export function findSkills(ctx: HarnessContext): { skills: SkillInfo[]; problems: SkillProblem[] } {
  const seen = new Set<string>();
  const skills: SkillInfo[] = [];
  const problems: SkillProblem[] = [];
  for (const [root, scope] of skillRoots(ctx)) {
    const found = scan(root, scope);
    problems.push(...found.problems);
    for (const skill of found.skills) {
      const key = skill.module ?? skill.name;
      if (seen.has(key)) continue;
      seen.add(key);
      skills.push(skill);
    }
  }
  return { skills, problems };
}
