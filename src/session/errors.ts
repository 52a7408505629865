import { UserError } from "../config/errors.js";

/** A journal that cannot be trusted: a damaged line other than the last, or a format this relm cannot read. */
export class JournalFormatError extends UserError {
  override readonly name = "JournalFormatError";
  constructor(
    readonly file: string,
    /** 1-based line number (the header is line 1); undefined when only a tail of the file was read. */
    readonly line: number | undefined,
    readonly reason: string,
    /** Byte offset of the offending line, when known. */
    readonly offset?: number,
  ) {
    const where =
      line !== undefined ? `${file}:${line}` : offset !== undefined ? `${file} (byte ${offset})` : file;
    super(`${where}: ${reason}`);
  }
}

/** A session id that cannot name a session folder (empty, `.`, `..`, or with a path separator). */
export class SessionIdError extends UserError {
  override readonly name = "SessionIdError";
}
