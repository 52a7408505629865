import { relmHomeFrom } from "../../config/config.js";
import { isUserError, UsageError, UserError, userExitCode } from "../../config/errors.js";
import { homeToRead } from "../../config/home-check.js";
import { resolveAgent, sessionDir, sessionsDir } from "../../session/index.js";
import {
  byIdOrPrefix,
  type EntryState,
  type HarnessContext,
  HarnessStore,
  type IdLookup,
  openStores,
  type Scope,
  takeLogWarnings,
} from "../store/index.js";

export interface HarnessIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface ScopeFlags {
  scope?: Scope;
  session?: string;
}

/**
 * Where the harness is for this command: the project of the working directory, the user's home, a
 * session (--session, or `agent`: one the command resolved already, for its own use too).
 */
export function harnessContext(
  flags: ScopeFlags,
  io: HarnessIo,
  agent?: { readonly root: string },
): HarnessContext {
  const home = homeToRead(relmHomeFrom(io.env));
  if (flags.scope === "session" && !flags.session && !agent) {
    throw new UsageError("the session scope needs a session: add --session ID");
  }
  const ctx: HarnessContext = { cwd: io.cwd, home };
  // A sub-agent's id names its tree's session scope, its root session's (as in the child's kernel).
  const root =
    agent?.root ?? (flags.session ? resolveAgent(sessionsDir(home), flags.session).root : undefined);
  if (root) ctx.sessionDir = sessionDir(home, root);
  return ctx;
}

/** The one store named by --scope, or every store visible from `ctx`. */
export function storesFor(flags: ScopeFlags, ctx: HarnessContext): HarnessStore[] {
  return flags.scope ? [HarnessStore.of(flags.scope, ctx)] : openStores(ctx);
}

/** How a command names an entry (by id or unique prefix) and words a miss; `where` says where it looked. */
export function entryLookup(where: string): IdLookup<EntryState> {
  return {
    noun: "entry",
    id: (e) => e.id,
    where,
    shown: (e) => `${e.id} (${e.scope})`,
    narrow: "give more characters or --scope",
    apart: (entries) => `say which with ${entries.map((e) => `--scope ${e.scope}`).join(" or ")}`,
  };
}

/** An entry by id or prefix in the given stores. */
export function findEntry(stores: HarnessStore[], query: string): EntryState {
  const where = `in the ${stores.map((s) => s.scope).join(", ")} scope(s)`;
  return byIdOrPrefix(
    stores.flatMap((s) => s.entries()),
    query,
    entryLookup(where),
  );
}

/** A harness problem the user can act on (exit 1). */
export class HarnessCliError extends UserError {
  override name = "HarnessCliError";
}

/**
 * Runs a command; the harness's own errors become a message and exit code 1 (2 for bad usage). Damaged
 * lines of the logs it read, which it left out, are warned about once per file on stderr.
 */
export async function guarded(io: HarnessIo, work: () => Promise<number> | number): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (isUserError(error)) {
      io.stderr.write(`relm: ${error.message}\n`);
      return userExitCode(error);
    }
    throw error;
  } finally {
    for (const warning of takeLogWarnings()) io.stderr.write(`relm: warning: ${warning}\n`);
  }
}

/** A command run by guarded() in the harness context its flags name. */
export function inHarness(
  flags: ScopeFlags,
  io: HarnessIo,
  work: (ctx: HarnessContext) => Promise<number> | number,
): Promise<number> {
  return guarded(io, () => work(harnessContext(flags, io)));
}
