// Starting a server listening, as a promise that fails with the listen error (EADDRINUSE, a path too
// long) instead of an unhandled "error" event; the Unix-socket form every relm socket uses: 0600; and
// the one private directory ($TMPDIR/relm-UID) the sockets outside RELM_HOME are made in.
import { chmodSync, lstatSync } from "node:fs";
import type { ListenOptions, Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { makeDirs } from "../config/dirs.js";

/** sockaddr_un.sun_path is 104 bytes on macOS (108 on Linux), including the terminating NUL. */
export const MAX_SOCKET_PATH = 103;

/** Resolves once `server` listens as `options` say; rejects with the error if it cannot. */
export function listening(server: Server, options: ListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/**
 * Listens on the Unix socket `path`, then makes it 0600 so only this user can connect (the mode a new
 * socket gets is the umask's). A stale file at `path` is the caller's to remove first.
 */
export async function listenPrivate(server: Server, path: string): Promise<void> {
  await listening(server, { path });
  chmodSync(path, 0o600);
}

/**
 * `dir` (or `$TMPDIR/relm-<uid>`, or `/tmp/relm-<uid>` when that path is too long for a socket),
 * created 0700 if missing: where the fork sockets, the sandbox's proxy socket and ssh's shared
 * connections live. An existing directory must be ours and is made private; a symlink or someone
 * else's directory is refused, since whoever controls it could swap a socket and intercept the kernels.
 */
export function privateSocketDir(dir?: string): string {
  const uid = process.getuid?.() ?? 0;
  let chosen = dir;
  if (!chosen) {
    chosen = path.join(os.tmpdir(), `relm-${uid}`);
    // Leaves room for the socket's own name (~24 bytes).
    if (Buffer.byteLength(chosen) > MAX_SOCKET_PATH - 32) chosen = `/tmp/relm-${uid}`;
  }
  chosen = path.resolve(chosen);
  makeDirs(chosen, 0o700);
  const st = lstatSync(chosen);
  if (!st.isDirectory()) throw new Error(`${chosen} is not a directory`);
  if (process.getuid && st.uid !== uid) throw new Error(`${chosen} belongs to another user (uid ${st.uid})`);
  if ((st.mode & 0o077) !== 0) chmodSync(chosen, 0o700);
  return chosen;
}
