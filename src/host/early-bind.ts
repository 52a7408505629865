import { relmHomeFrom } from "../config/config.js";
import { SessionServer } from "./server.js";

const KEY = Symbol.for("relm.early-bound-host");

/**
 * A detached host binds its socket first thing, before the CLI bundle is even loaded: the socket is the
 * session's lock, and the launcher is waiting for it. The result (or the error) is picked up by the run
 * command through takeEarlyBound().
 */
export async function bindEarly(id: string): Promise<void> {
  const slot = globalThis as unknown as Record<symbol, unknown>;
  try {
    slot[KEY] = { id, server: await SessionServer.listen(relmHomeFrom(process.env), id) };
  } catch (error) {
    slot[KEY] = { id, error };
  }
}

/** The socket bound by bindEarly() for this session, if any; rethrows its error. */
export function takeEarlyBound(id: string): SessionServer | undefined {
  const slot = globalThis as unknown as Record<
    symbol,
    { id: string; server?: SessionServer; error?: unknown } | undefined
  >;
  const bound = slot[KEY];
  if (!bound || bound.id !== id) return undefined;
  slot[KEY] = undefined;
  if (bound.error) throw bound.error;
  return bound.server;
}
