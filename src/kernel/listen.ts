// Starting a server listening, as a promise that fails with the listen error (EADDRINUSE, a path too
// long) instead of an unhandled "error" event; and the Unix-socket form every relm socket uses: 0600.
import { chmodSync } from "node:fs";
import type { ListenOptions, Server } from "node:net";

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
