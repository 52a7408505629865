/** A problem the user can fix by changing configuration; the message says how. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Bad command-line input (exit code 2). */
export class UsageError extends Error {
  override name = "UsageError";
}
