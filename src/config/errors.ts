// The user-facing error base class: an error whose message is written for the person at the terminal
// (bad input, a configuration to fix, a session that cannot be resumed), printed as one `relm: …` line
// and ending the command with its exit code, never with a stack trace. Everything else is relm's bug.
//
// Why a brand and not plain `instanceof`: this module can be loaded twice in one process. A detached
// host loads dist/host/early-bind.js and what it imports (config/, session/, host/server) unbundled,
// then the CLI bundle (dist/cli/app.js and its chunks), which has its own copy of the same classes. An
// error thrown by one copy is not `instanceof` the other copy's class. The brand is a property keyed by
// a registered symbol (Symbol.for: one symbol per process, whichever copy asks), so isUserError() — and
// `instanceof UserError`, which is routed to it — recognises a user error from either copy. The exit
// code is read from the error itself for the same reason. Subclasses keep the ordinary prototype check.

const BRAND: unique symbol = Symbol.for("relm.user-error");

/** How a user error ends the command: 1 (an error the user can fix), 2 (bad command-line usage). */
type UserExitCode = 1 | 2;

/** Every error caused by the user's input or environment extends this; the message says what to do. */
export class UserError extends Error {
  override name = "UserError";
  /** The process exit code (ARCHITECTURE.md): 1 error, 2 usage. */
  readonly exitCode: UserExitCode = 1;
  readonly [BRAND] = true;

  /** True for a user error from any copy of this module (see above), for subclasses of this copy as usual. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // `this` is the class on the right of instanceof: UserError itself, or a subclass.
    // biome-ignore lint/complexity/noThisInStatic: see above
    if (this === UserError) return isUserError(value);
    // biome-ignore lint/complexity/noThisInStatic: see above
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/** A user error from any copy of this module: the one check the CLI makes before printing `relm: …`. */
export function isUserError(value: unknown): value is UserError {
  return value instanceof Error && (value as unknown as Record<symbol, unknown>)[BRAND] === true;
}

/**
 * Marks `error`, of another class, as the user's (exit 1): a session host's refusal of what a command
 * asked (a message too long, a session that is stopping) is told as one `relm: …` line.
 */
export function markUserError<E extends Error>(error: E): E {
  Object.defineProperty(error, BRAND, { value: true });
  return error;
}

/** The exit code a user error asks for (1 unless it says 2). */
export function userExitCode(error: UserError): UserExitCode {
  return error.exitCode === 2 ? 2 : 1;
}

/** A problem the user can fix by changing configuration; the message says how. */
export class ConfigError extends UserError {
  override name = "ConfigError";
}

/** Bad command-line input (exit code 2). */
export class UsageError extends UserError {
  override name = "UsageError";
  override readonly exitCode: UserExitCode = 2;
}
