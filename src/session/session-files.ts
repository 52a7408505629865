import { closeSync, constants, existsSync, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { within } from "../config/paths.js";

/**
 * A file the journal refers to (outputs/…), or null when it is missing. Paths that leave the session dir
 * are refused: an edited journal must not make an export embed arbitrary files. So are links that lead
 * out of it: outputs/ is writable by the session's kernels (sandboxed ones too), and a cell that replaced
 * its image with a link to $RELM_HOME/auth.json would have had `relm export` embed the tokens. Only a
 * regular file is read (a FIFO would block), checked on the open file.
 */
export function readSessionFile(dir: string, relativePath: string): Buffer | null {
  const root = resolve(dir);
  const path = resolve(root, relativePath);
  if (path === root || !within(path, root)) return null;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return null;
  }
  try {
    const self = `/proc/self/fd/${fd}`;
    const real = realpathSync(existsSync(self) ? self : path);
    const stat = fstatSync(fd);
    if (!stat.isFile() || !within(real, realpathSync(root))) return null;
    const buf = Buffer.alloc(stat.size);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
