// "Always for this project": the answers a person gave once for good, kept in $RELM_HOME/approvals.json
// (user-only, 0600) by project folder. Never in the project's .relm/: the kernels can write there, and
// what grants them more must not be theirs to write.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ApprovalRules, emptyRules } from "../../config/approvals.js";
import { writePrivateJson } from "../../config/private-file.js";

const APPROVALS_FILE = "approvals.json";

interface StoreFile {
  projects: Record<string, Partial<ApprovalRules>>;
}

function read(file: string): StoreFile {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<StoreFile>;
    return { projects: typeof parsed.projects === "object" && parsed.projects ? parsed.projects : {} };
  } catch {
    return { projects: {} };
  }
}

function listOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === "string") : [];
}

/** The rules remembered for `project` (read each time: another session may have added one). */
export function projectRules(home: string, project: string): ApprovalRules {
  const entry = read(join(home, APPROVALS_FILE)).projects[project] ?? {};
  return { hosts: listOf(entry.hosts), commands: listOf(entry.commands), paths: listOf(entry.paths) };
}

/** Adds `rule` to `project`'s list `list`. */
export function rememberForProject(
  home: string,
  project: string,
  list: keyof ApprovalRules,
  rule: string,
): void {
  const file = join(home, APPROVALS_FILE);
  const store = read(file);
  const entry = { ...emptyRules(), ...projectRules(home, project) };
  if (!entry[list].includes(rule)) entry[list].push(rule);
  store.projects[project] = entry;
  writePrivateJson(file, store);
}
