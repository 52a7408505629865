// Path questions several layers ask: a path as the file system names it, and whether one lies inside another.
import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** The real path (symlinks resolved); the absolute path when it does not exist. */
export function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Whether `child` is `parent` or lies below it (both absolute, as given: no symlink is followed). */
export function within(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
