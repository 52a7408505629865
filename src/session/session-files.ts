import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { within } from "../config/paths.js";

/**
 * A file the journal refers to (outputs/…), or null when it is missing. Paths that leave the session dir
 * are refused: an edited journal must not make an export embed arbitrary files.
 */
export function readSessionFile(dir: string, relativePath: string): Buffer | null {
  const root = resolve(dir);
  const path = resolve(root, relativePath);
  if (path === root || !within(path, root)) return null;
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}
