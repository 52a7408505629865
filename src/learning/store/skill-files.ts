import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { yamlLib } from "../../config/lazy.js";
import { ensureDir, writeFile } from "./paths.js";
import type { Entry, ScopeLocation } from "./types.js";

/** Marks a skill folder written from a harness entry: only such folders are ever rewritten or removed. */
const MARKER_FILE = ".harness-entry";

function skillMarkdown(name: string, description: string, entryId: string): string {
  const front = yamlLib().stringify({ name, description }, { lineWidth: 0 }).trimEnd();
  const origin = `Kept by relm's harness as entry ${entryId}: \`relm harness log\` shows its history.`;
  return `---\n${front}\n---\n\n# ${name}\n\n${description}\n\nUse it from Python: \`import ${name}\`, then \`help(${name})\`.\n\n${origin}\n`;
}

function writeIfChanged(path: string, data: string, isPrivate: boolean): void {
  if (existsSync(path) && readFileSync(path, "utf8") === data) return;
  writeFile(path, data, isPrivate);
}

/** The id in a folder's marker, or undefined for a folder a person made. */
export function markerOf(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, MARKER_FILE), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes the scope's skills folder match its skill entries: one folder NAME/ with SKILL.md and, when
 * the entry has code, the package NAME/NAME/__init__.py. Folders without the marker are left alone.
 */
export function syncSkillFolders(location: ScopeLocation, entries: readonly Entry[]): void {
  const skills = entries.filter((e) => e.kind === "skill");
  const wanted = new Map(skills.map((e) => [e.title, e]));
  if (existsSync(location.skillsDir)) {
    for (const name of readdirSync(location.skillsDir)) {
      const dir = join(location.skillsDir, name);
      const id = markerOf(dir);
      if (id !== undefined && wanted.get(name)?.id !== id) rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const entry of skills) {
    const dir = join(location.skillsDir, entry.title);
    const id = markerOf(dir);
    if (existsSync(dir) && id === undefined) continue; // a person's folder of the same name wins
    ensureDir(dir, location.private);
    writeIfChanged(join(dir, MARKER_FILE), `${entry.id}\n`, location.private);
    writeIfChanged(
      join(dir, "SKILL.md"),
      skillMarkdown(entry.title, entry.content, entry.id),
      location.private,
    );
    const pkg = join(dir, entry.title);
    if (entry.code === undefined) {
      rmSync(pkg, { recursive: true, force: true });
      continue;
    }
    ensureDir(pkg, location.private);
    writeIfChanged(
      join(pkg, "__init__.py"),
      entry.code.endsWith("\n") ? entry.code : `${entry.code}\n`,
      location.private,
    );
  }
}
