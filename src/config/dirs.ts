// Creating a directory and its missing parents, in place of `mkdirSync(path, { recursive: true })`.
// Node's recursive mkdir loops forever, at full CPU, where mkdir fails with ENOENT although the parent
// exists (a path under /proc: `RELM_HOME=/proc/1/nothere` hung relm): it creates the parent again
// (EEXIST, a directory) and retries the child, endlessly. Here each level is tried at most twice, and
// the failure is the error of the path that could not be made.

import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** mkdir -p: `path` and its missing parents (each with `mode`); nothing when it is a directory already. */
export function makeDirs(path: string, mode?: number): void {
  try {
    mkdirSync(path, { mode });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      if (isDirectory(path)) return;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), {
        code: "ENOTDIR",
        syscall: "mkdir",
        path,
      });
    }
    const parent = dirname(path);
    if (code !== "ENOENT" || parent === path) throw error;
    makeDirs(parent, mode);
  }
  // The parent is there now; a second ENOENT is this file system's answer, not a missing parent.
  try {
    mkdirSync(path, { mode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST" && isDirectory(path)) return;
    throw error;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
