// How a failed command ends: the user's own mistakes (bad arguments, a session id that matches nothing,
// a file that cannot be read) as one `relm: ...` line and exit 2 or 1; anything else is relm's bug
// and keeps its stack for the report. This is the one place that decides: an error is the user's when it
// extends UserError (see config/errors.ts for why that check survives two copies of a class).

import { CommanderError } from "commander";
import { isUserError, userExitCode } from "../config/errors.js";
import { describeFileError } from "../config/file-errors.js";
import { EXIT } from "./exit-codes.js";
import { describeParseError } from "./parse-errors.js";

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
