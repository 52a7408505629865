// The one way relm writes a file that may hold a secret (config.json, auth.json, trust.json): a temporary
// file created 0600 in the same directory (made 0700 if missing), flushed to disk, then renamed over the
// target. No moment exists where the secret sits in a file others can read, and a crash or a full disk
// leaves the old file or the new one, never half of either.
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { makeDirs } from "./dirs.js";

/** Replaces `path` with `text`, readable and writable by the user only, atomically. */
export function writePrivateFile(path: string, text: string): void {
  makeDirs(dirname(path), 0o700);
  const tmp = `${path}.${process.pid}.tmp`;
  let fd: number | undefined;
  try {
    // "wx": a leftover temporary file of a dead process with our pid is removed first, never followed.
    rmSync(tmp, { force: true });
    fd = openSync(tmp, "wx", 0o600);
    fchmodSync(fd, 0o600); // the umask may have narrowed the mode, never widened it; make it exact
    writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** Writes a JSON value as a private file, two-space indented with a final newline. */
export function writePrivateJson(path: string, value: unknown): void {
  writePrivateFile(path, `${JSON.stringify(value, null, 2)}\n`);
}
