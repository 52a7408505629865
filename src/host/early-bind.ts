import { relmHomeFrom } from "../config/config.js";
import { type AdoptLayout, FIRST_CLIENT_FD, LISTEN_FD, LOCK_FD } from "./handoff.js";
import { socketPath } from "./paths.js";
import { SessionServer } from "./server.js";

const KEY = Symbol.for("relm.early-bound-host");

/**
 * A detached host binds its socket first thing, before the CLI bundle is even loaded: the socket is the
 * session's lock, and the launcher is waiting for it. The result (or the error) is picked up by the run
 * command through takeEarlyBound().
 */
export async function bindEarly(id: string, adopt?: string): Promise<void> {
  const slot = globalThis as unknown as Record<symbol, unknown>;
  try {
    const home = relmHomeFrom(process.env);
    const server = adopt
      ? SessionServer.adopt(socketPath(home, id), descriptorsOf(adopt))
      : await SessionServer.listen(home, id);
    slot[KEY] = { id, server };
  } catch (error) {
    slot[KEY] = { id, error };
  }
}

/** `--adopt LAYOUT` (from src/host/stub.ts): which inherited descriptors are the socket, lock and clients. */
function descriptorsOf(layout: string): { listen: number; lock?: number; clients: number[] } {
  const { lock, clients } = JSON.parse(layout) as AdoptLayout;
  const count = Number.isInteger(clients) && clients > 0 ? clients : 0;
  return {
    listen: LISTEN_FD,
    lock: lock ? LOCK_FD : undefined,
    clients: Array.from({ length: count }, (_, i) => FIRST_CLIENT_FD + i),
  };
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
