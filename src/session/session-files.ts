import { resolve } from "node:path";
import { readBoundedFile } from "../config/bounded-read.js";
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
  try {
    return readBoundedFile(path, Number.MAX_SAFE_INTEGER, { inside: root });
  } catch {
    return null;
  }
}
