// An error of the file system (a path the user gave, the state of their machine) told in words:
// `cannot open /x/y: no such file or directory` instead of Node's `ENOENT: …, open '/x/y'`. Shared by the
// CLI's error reporter and the slash commands of every front end, so a user's mistake reads the same.
import { describeHomeProblem, isUnderHome } from "./home-check.js";

/** File-system refusals that come from paths the user gave or the state of their machine. */
const FILE_ERRORS: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "is a directory",
  ENOTDIR: "a part of the path is not a directory",
  EEXIST: "already exists",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device; free some space (or point RELM_HOME at another disk) and try again",
  EDQUOT: "the disk quota is used up; free some space and try again",
  EMFILE: "too many open files",
};

/**
 * `cannot open /x/y: no such file or directory` for an fs error that names its path, else undefined. A
 * failure under RELM_HOME (`home`) that comes from the state of RELM_HOME itself (a file in its path, a
 * read-only disk) is told as that, since Node's code for it can mislead (ENOENT for a read-only disk).
 */
export function describeFileError(error: unknown, home?: string): string | undefined {
  const e = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof e.code !== "string" || typeof e.path !== "string") return undefined;
  if (home && isUnderHome(e.path, home)) {
    const problem = describeHomeProblem(home);
    if (problem) return problem;
  }
  const reason = FILE_ERRORS[e.code];
  if (!reason) return undefined;
  const verb = e.syscall ? ` ${e.syscall}` : "";
  return `cannot${verb} ${e.path}: ${reason}`;
}
