import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The project a working directory belongs to: the nearest directory (up to the repository root) that
 * has a `.relm/` folder, else the repository root, else the working directory itself. Its `.relm/` holds
 * the project's sub-agent specs and harness.
 */
export function projectRoot(cwd: string): string {
  let dir = cwd;
  for (;;) {
    if (existsSync(join(dir, ".relm"))) return dir;
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return cwd;
    dir = parent;
  }
}
