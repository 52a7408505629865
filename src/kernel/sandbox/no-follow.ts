// Files the host writes in folders a sandboxed kernel can write too (the session's outputs/ and
// snapshot/, a child's folder): a symbolic link planted at the name would have the host write through
// it, into any file of the user's (a ~/.bashrc; issue 19). The data goes to a new file of a random name
// beside it (O_EXCL: never an existing name, link or not), which is then renamed over the name: a link
// there is replaced, never followed.

import { randomBytes } from "node:crypto";
import { closeSync, constants, fchmodSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Writes `data` to `path` (mode `mode`, whatever the umask) without following a link at `path`. */
export function writeNoFollow(path: string, data: string | Uint8Array, mode = 0o600): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    const buf = typeof data === "string" ? Buffer.from(data) : data;
    let written = 0;
    while (written < buf.length) written += writeSync(fd, buf, written, buf.length - written);
    fchmodSync(fd, mode);
    closeSync(fd);
    renameSync(tmp, path);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    rmSync(tmp, { force: true });
    throw error;
  }
}
