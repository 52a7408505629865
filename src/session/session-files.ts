import { readFileSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";

/**
 * A file the journal refers to (outputs/…), or null when it is missing. Paths that leave the session dir
 * are refused: an edited journal must not make an export embed arbitrary files.
 */
export function readSessionFile(dir: string, relativePath: string): Buffer | null {
  const root = resolve(dir);
  const path = resolve(root, relativePath);
  const rel = relative(root, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return null;
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}
