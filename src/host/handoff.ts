// An idle session host hands its place to a stub (src/host/stub.ts): a process of bare Node (~40 MB RSS
// against the host's ~80 MB) that holds the session's socket and lock and does nothing else. The first
// client to connect, or the session's next scheduled tick, makes the stub start the full host again
// with the same socket, lock and waiting connections (never read by the stub, so nothing is lost); at
// the idle deadline the stub removes the socket and exits, as the idle host itself would have.
//
// Descriptors cross as the child's inherited stdio: fd 3 the listening socket, fd 4 the lock (when
// there is one), fd 5 on the connections waiting. `--adopt LAYOUT` tells the next host which is which.
// The keys cross on one more pipe after those (key-pipe.ts): the stub holds them for the host it starts,
// and neither has them in its environment.

import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Keys, spawnDetached } from "./key-pipe.js";
import type { SessionServer } from "./server.js";

// dist/host/stub.js, whether this module runs from dist/host/ or from a chunk in dist/cli/.
const STUB = fileURLToPath(new URL("../host/stub.js", import.meta.url));
// The CLI entry (package.json's bin): dist/cli/relm.cjs, whether this module runs from dist/host/ or from a chunk in dist/cli/.
export const MAIN = fileURLToPath(new URL("../cli/relm.cjs", import.meta.url));

/**
 * Node flags of every session host. V8 grows the young generation up to 2 x 16 MB when objects outlive a
 * scavenge, which on a busy machine (every await takes longer) they do, and never gives it back: an
 * hour's soak at load 15+ found hosts at 115 MB with 32 MB of it new space (bench/soak.mjs --reports).
 * A host's allocations are small and bursty; capped at 2 x 4 MB, the rest is collected as before.
 */
export const HOST_NODE_FLAGS = ["--max-semi-space-size=4"];

/** Which inherited descriptor is what, in a process that takes the socket over. */
export interface AdoptLayout {
  lock: boolean;
  clients: number;
}

export const LISTEN_FD = 3;
export const LOCK_FD = 4;
export const FIRST_CLIENT_FD = 5;

/** What a stub is told: how to start the host again, and until when to wait. */
export interface StubPlan {
  socketPath: string;
  cwd: string;
  logPath: string;
  /** `node` and its arguments that start the host again (`--adopt LAYOUT` is added by the stub). */
  revive: string[];
  /** The stub removes the socket and exits then (epoch ms): the host's own idle deadline. */
  idleExitAt: number;
  /** The session's next scheduled tick (epoch ms): the host is started again for it. */
  wakeAt?: number;
  lock: boolean;
  /** Connections accepted while the host was handing over: the stub starts the host at once for them. */
  clients: number;
}

/** True when this build has a stub to hand over to (Linux: liveness is the abstract lock, not the socket). */
export function stubAvailable(): boolean {
  return process.platform === "linux" && existsSync(STUB);
}

/** The arguments that start the host of session `id` again (as reviveHost does), after the entry. */
export function reviveArgs(id: string): string[] {
  return [...HOST_NODE_FLAGS, MAIN, "run", "--as-host", id, "--resume", id];
}

/**
 * Starts the stub with the server's socket, lock and held connections, `env` without secrets and `keys`
 * on a pipe; its pid, or undefined when the
 * descriptors could not be had or the process not started (the host then exits as an idle host does).
 * Synchronous on purpose: the caller exits right after, before its event loop can accept another
 * connection that would then be lost.
 */
export function startStub(
  server: SessionServer,
  plan: Omit<StubPlan, "lock" | "clients" | "socketPath">,
  environment: { env: NodeJS.ProcessEnv; keys: Keys },
): number | undefined {
  const fds = server.descriptors();
  if (!fds) return undefined;
  const full: StubPlan = {
    ...plan,
    socketPath: server.path,
    lock: fds.lock !== undefined,
    clients: fds.clients.length,
  };
  try {
    const passed = [fds.listen, fds.lock ?? ("ignore" as const), ...fds.clients];
    return spawnDetached([STUB, JSON.stringify(full)], plan.logPath, {
      cwd: plan.cwd,
      ...environment,
      fds: passed,
    }).pid;
  } catch {
    return undefined;
  }
}
