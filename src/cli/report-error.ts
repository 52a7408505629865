// How a failed command ends: the user's own mistakes (bad arguments, a session id that matches nothing,
// a file that cannot be read) as one `relm: ...` line and exit 2 or 1; anything else is relm's bug
// and keeps its stack for the report. This is the one place that decides: an error is the user's when it
// extends UserError (see config/errors.ts for why that check survives two copies of a class).

import { CommanderError } from "commander";
import { isUserError, userExitCode } from "../config/errors.js";
import { describeHomeProblem, isUnderHome } from "../config/home-check.js";
import { EXIT } from "./exit-codes.js";
import { describeParseError } from "./parse-errors.js";

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
function describeFileError(error: unknown, home?: string): string | undefined {
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

/**
 * Maps a thrown error to its message and exit code; unknown errors keep their stack for bug reports.
 * `home` is RELM_HOME, to explain file errors that come from it.
 */
export function reportError(error: unknown, stderr: NodeJS.WritableStream, home?: string): number {
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return EXIT.done;
    // `relm help` exits 0; a group called without its command (`relm harness`) printed help as an error.
    if (error.code === "commander.help") return error.exitCode === 0 ? EXIT.done : EXIT.usage;
    stderr.write(describeParseError(error));
    return EXIT.usage;
  }
  // Every error the user caused extends UserError (config/errors.ts), whichever module threw it.
  if (isUserError(error)) {
    stderr.write(`relm: ${error.message}\n`);
    return userExitCode(error);
  }
  const file = describeFileError(error, home);
  if (file) {
    stderr.write(`relm: ${file}\n`);
    return EXIT.error;
  }
  stderr.write(
    `relm: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return EXIT.error;
}
