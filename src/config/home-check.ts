// Why RELM_HOME cannot be used, in words: a file where a directory should be, a read-only file system,
// no permission. Node's own errors say less (a recursive mkdir on a read-only disk fails with ENOENT),
// so a failed write under RELM_HOME is explained from the state of the path instead.

import { accessSync, constants, statSync } from "node:fs";
import { dirname, sep } from "node:path";
import { UserError } from "./errors.js";

/** The first path from `path` upwards that exists, and what it is. */
function nearestExisting(path: string): { path: string; isDirectory: boolean } | undefined {
  for (let p = path; ; p = dirname(p)) {
    try {
      return { path: p, isDirectory: statSync(p).isDirectory() };
    } catch {
      if (dirname(p) === p) return undefined;
    }
  }
}

/** Why relm cannot create or write RELM_HOME `home`, or undefined when it can (as far as access(2) says). */
export function homeProblem(home: string): string | undefined {
  const found = nearestExisting(home);
  if (!found) return undefined;
  if (!found.isDirectory) return `${found.path} is a file, not a directory`;
  try {
    accessSync(found.path, constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EROFS") return `${found.path} is on a read-only file system`;
    if (code === "EACCES" || code === "EPERM") return `${found.path} is not writable by you`;
    return undefined;
  }
}

/** The message for a RELM_HOME that cannot be used, or undefined when `home` looks usable. */
export function describeHomeProblem(home: string): string | undefined {
  const problem = homeProblem(home);
  return problem ? unusable(home, problem) : undefined;
}

function unusable(home: string, problem: string): string {
  return `RELM_HOME (${home}) cannot be used: ${problem}. Point RELM_HOME at a writable directory`;
}

/**
 * `home` for a command that only reads it (`relm agents`, `schedule list`, `harness log`): a RELM_HOME
 * that is a file (or under one) is refused as `relm run` refuses it, where an empty listing would say
 * "no sessions yet" of a home that cannot hold any. A read-only or unwritable one can still be read.
 */
export function homeToRead(home: string): string {
  const found = nearestExisting(home);
  if (found && !found.isDirectory)
    throw new UserError(unusable(home, `${found.path} is a file, not a directory`));
  return home;
}

/** Whether `path` is RELM_HOME or inside it. */
export function isUnderHome(path: string, home: string): boolean {
  return path === home || path.startsWith(home.endsWith(sep) ? home : home + sep);
}
