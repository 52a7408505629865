import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { yamlLib } from "../config/lazy.js";
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

/** Front matter of SKILL.md, or undefined when there is none that names a description. */
export function readSkillFile(path: string): { name?: string; description: string } | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match) return undefined;
  try {
    const front = yamlLib().parse(match[1] as string) as Record<string, unknown> | null;
    const description = typeof front?.description === "string" ? front.description.trim() : "";
    if (!description) return undefined;
    return { name: typeof front?.name === "string" ? front.name.trim() : undefined, description };
  } catch {
    return undefined;
  }
}

function scan(root: string, scope: Scope): SkillInfo[] {
  if (!existsSync(root)) return [];
  const out: SkillInfo[] = [];
  for (const folder of readdirSync(root).sort()) {
    const dir = join(root, folder);
    const front = readSkillFile(join(dir, "SKILL.md"));
    if (!front) continue;
    const module = folder.replace(/-/g, "_");
    const hasModule = existsSync(join(dir, module, "__init__.py")) || existsSync(join(dir, `${module}.py`));
    out.push({
      name: front.name || folder,
      description: front.description.replace(/\s+/g, " "),
      dir,
      scope,
      module: hasModule ? module : undefined,
      entryId: markerOf(dir),
    });
  }
  return out;
}

/**
 * Every skill visible from `ctx`, most specific first: the session's, the project's (.relm/skills, then
 * .agents/skills), the user's ($RELM_HOME/skills). A name already seen shadows later ones, in the same
 * order as PYTHONPATH, so the skill listed is the one `import` finds.
 */
export function discoverSkills(ctx: HarnessContext): SkillInfo[] {
  const roots: [string, Scope][] = [];
  if (ctx.sessionDir) roots.push([scopeLocation("session", ctx).skillsDir, "session"]);
  roots.push([scopeLocation("project", ctx).skillsDir, "project"]);
  roots.push([agentsSkillsDir(ctx.cwd), "project"]);
  roots.push([scopeLocation("user", ctx).skillsDir, "user"]);
  const seen = new Set<string>();
  const out: SkillInfo[] = [];
  for (const [root, scope] of roots) {
    for (const skill of scan(root, scope)) {
      const key = skill.module ?? skill.name;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(skill);
    }
  }
  return out;
}
