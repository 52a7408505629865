// What a runner's ready message says about the skills it was given (python/relm/skillpath.py): lines
// for the person, and the folders whose package it cannot import, for the prompt. A kernel's own words,
// so only strings are kept, capped, and only folders the host itself named.
import { skillFolders } from "./env.js";
import type { ReadyMessage } from "./protocol.js";

export function skillReport(
  ready: ReadyMessage,
  env: NodeJS.ProcessEnv,
): { warnings: string[] | undefined; shadowed: string[] } {
  const lines = Array.isArray(ready.unused_skills)
    ? ready.unused_skills
        .filter((l): l is string => typeof l === "string")
        .slice(0, 20)
        .map((l) => l.slice(0, 1000))
    : [];
  const said = Array.isArray(ready.unused_skill_dirs) ? ready.unused_skill_dirs : [];
  return {
    warnings: lines.length > 0 ? lines : undefined,
    shadowed: skillFolders(env).filter((folder) => said.includes(folder)),
  };
}
