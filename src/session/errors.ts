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
    /** "damaged": bytes that are not what relm wrote; "version": a journal another relm wrote. */
    readonly kind: "damaged" | "version" = "damaged",
  ) {
    const where =
      line !== undefined ? `${file}:${line}` : offset !== undefined ? `${file} (byte ${offset})` : file;
    // The person's next step, since nothing else in the message says what to do about it.
    const next =
      kind === "damaged" ? "; the journal is damaged there: `relm doctor` says how to recover it" : "";
    super(`${where}: ${reason}${next}`);
  }
}

/** A session id that cannot name a session folder (empty, `.`, `..`, or with a path separator). */
export class SessionIdError extends UserError {
  override readonly name = "SessionIdError";
}
