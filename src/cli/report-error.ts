// How a failed command ends: the user's own mistakes (bad arguments, a session id that matches nothing,
// a file that cannot be read) as one `relm: ...` line and exit 2 or 1; anything else is relm's bug
// and keeps its stack for the report.

import { CommanderError } from "commander";
import { ConfigError, UsageError } from "../config/errors.js";
import { EXIT } from "./exit-codes.js";
import { describeParseError } from "./parse-errors.js";

/** Errors whose message is written for the person at the terminal (exit 1). */
const USER_FACING = new Set([
  "SessionResumeError",
  "SessionBusyError",
  "HostLaunchError",
  "SocketPathError",
  "SpecError",
  "ScheduleError",
  "CheckpointError",
  "JournalFormatError",
  "HarnessCliError",
  "HarnessConflictError",
  "HarnessLogError",
  "HarnessLockError",
  "KernelStartError",
]);

/** Errors the user's input caused and can fix by typing something else (exit 2). */
const USAGE = new Set(["HarnessScopeError"]);

/** File-system refusals that come from paths the user gave or the state of their machine. */
const FILE_ERRORS: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "is a directory",
  ENOTDIR: "a part of the path is not a directory",
  EEXIST: "already exists",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EMFILE: "too many open files",
};

/** `cannot open /x/y: no such file or directory` for an fs error that names its path, else undefined. */
export function describeFileError(error: unknown): string | undefined {
  const e = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof e.code !== "string" || typeof e.path !== "string") return undefined;
  const reason = FILE_ERRORS[e.code];
  if (!reason) return undefined;
  const verb = e.syscall ? ` ${e.syscall}` : "";
  return `cannot${verb} ${e.path}: ${reason}`;
}

/** Maps a thrown error to its message and exit code; unknown errors keep their stack for bug reports. */
export function reportError(error: unknown, stderr: NodeJS.WritableStream): number {
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return EXIT.done;
    // `relm help` exits 0; a group called without its command (`relm harness`) printed help as an error.
    if (error.code === "commander.help") return error.exitCode === 0 ? EXIT.done : EXIT.usage;
    stderr.write(describeParseError(error));
    return EXIT.usage;
  }
  const name = error instanceof Error ? error.name : "";
  if (error instanceof UsageError || USAGE.has(name)) {
    stderr.write(`relm: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  if (
    error instanceof ConfigError ||
    name.endsWith("NotFoundError") ||
    name.endsWith("IdError") ||
    USER_FACING.has(name)
  ) {
    stderr.write(`relm: ${(error as Error).message}\n`);
    return EXIT.error;
  }
  const file = describeFileError(error);
  if (file) {
    stderr.write(`relm: ${file}\n`);
    return EXIT.error;
  }
  stderr.write(
    `relm: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return EXIT.error;
}
