import { join } from "node:path";
import { UserError } from "../config/errors.js";
import { ensurePrivateDir } from "../session/paths.js";

/** Longest path a Unix socket can bind on every platform we run on (macOS: 104 bytes). */
const SOCKET_PATH_MAX = 103;

/** `$RELM_HOME/run`: sockets of live sessions, user-only (0700). */
export function runDir(home: string): string {
  const dir = join(home, "run");
  ensurePrivateDir(dir);
  return dir;
}

class SocketPathError extends UserError {
  override name = "SocketPathError";
}

export function socketPath(home: string, id: string): string {
  const path = join(home, "run", `${id}.sock`);
  if (Buffer.byteLength(path) > SOCKET_PATH_MAX) {
    throw new SocketPathError(
      `RELM_HOME is too deep for a Unix socket (${path} is over ${SOCKET_PATH_MAX} bytes); use a shorter RELM_HOME`,
    );
  }
  return path;
}

export function statePath(home: string, id: string): string {
  return join(home, "sessions", id, "state.json");
}

export function hostLogPath(home: string, id: string): string {
  return join(home, "sessions", id, "host.log");
}
