// Files in the project that the host (relm, and git when the user reviews the work) reads and obeys: the
// sandbox shows them read-only, so code inside cannot plant a hook, a core.fsmonitor or a spec that
// runs on the host later (docs/sandbox.md, "What the host reads from the project").
//
// bubblewrap can only mount over a path that exists: a missing one would be created in the project as
// a real (empty) file or directory. So only what exists when the sandbox opens is protected here; the
// rest is listed as unprotected, for the host to treat as untrusted (and the docs to say).
import { lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { PROJECT_FILE_BYTES, readBoundedText } from "../../config/bounded-read.js";
import { within } from "../../config/paths.js";

interface ProtectedPaths {
  /** Existing paths inside the project, shown read-only (real paths). */
  readOnly: string[];
  /**
   * Directories between the project and a nested read-only path, each bound onto itself: a mount
   * point cannot be renamed or removed, so `sub/` cannot be moved aside and replaced by a `sub/` with
   * another `.git` in it. (The project's own top-level entries need none: the project is a mount.)
   */
  pinned: string[];
  /** Names asked for that did not exist (or lead outside the project): not protected by a mount. */
  unprotected: string[];
}

/** Submodules are followed this deep (a submodule's own .gitmodules, and so on). */
const SUBMODULE_DEPTH = 4;

/** Below `parent`, not `parent` itself. */
function below(child: string, parent: string): boolean {
  return child !== parent && within(child, parent);
}

function realInside(project: string, p: string): string | undefined {
  try {
    const real = realpathSync(p);
    return below(real, project) ? real : undefined;
  } catch {
    return undefined;
  }
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** The `path = ...` entries of a .gitmodules file (relative, inside the repository), or none. */
export function submodulePaths(gitmodules: string): string[] {
  let text: string;
  try {
    text = readBoundedText(gitmodules, PROJECT_FILE_BYTES);
  } catch {
    return [];
  }
  const paths: string[] = [];
  for (const m of text.matchAll(/^\s*path\s*=\s*(.+?)\s*$/gm)) {
    const value = m[1]!.replace(/^"(.*)"$/, "$1");
    const normal = path.normalize(value);
    if (!normal || path.isAbsolute(normal) || normal === "." || normal.split(path.sep).includes(".."))
      continue;
    paths.push(normal);
  }
  return paths;
}

/**
 * What to show read-only of `names` (relative to the real path `project`). For `.git`, the project's
 * submodules too: `git status` runs inside each checked-out one, with the config its `.git` file
 * points to, so a rewritten `sub/.git` is as good as a planted hook. A submodule not checked out (its
 * folder empty) is shown read-only whole, so that no `.git` can be put there.
 */
export function protectedPaths(project: string, names: readonly string[]): ProtectedPaths {
  const readOnly = new Set<string>();
  const pinned = new Set<string>();
  const unprotected: string[] = [];
  const protect = (p: string): boolean => {
    const real = realInside(project, p);
    if (!real) return false;
    readOnly.add(real);
    for (let dir = path.dirname(real); below(dir, project); dir = path.dirname(dir)) pinned.add(dir);
    return true;
  };
  const submodules = (repo: string, depth: number) => {
    if (depth > SUBMODULE_DEPTH) return;
    for (const rel of submodulePaths(path.join(repo, ".gitmodules"))) {
      const dir = path.join(repo, rel);
      const dotGit = path.join(dir, ".git");
      if (exists(dotGit)) {
        if (protect(dotGit)) submodules(dir, depth + 1);
      } else if (isDir(dir)) {
        protect(dir);
      }
    }
  };
  for (const name of names) {
    const p = path.join(project, name);
    if (!exists(p)) unprotected.push(name);
    else if (lstatSync(p).isSymbolicLink()) {
      // Its target is protected when it is in the project (outside, it is read-only anyway), but the
      // link itself is an entry of the project's folder, which can be replaced.
      protect(p);
      unprotected.push(name);
    } else protect(p);
    if (name === ".git") submodules(project, 1);
  }
  // A pin (a writable bind) inside a read-only path would make that part writable again.
  const ro = [...readOnly];
  const pins = [...pinned].filter((d) => !ro.some((r) => r === d || below(d, r)));
  return { readOnly: ro, pinned: pins, unprotected };
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}
