// Starting a new shadow repository from the user's own git: their index says, for every file they track,
// which blob it holds and the stat data under which that is still true. Copied into the shadow index (and
// the user's object store named as an alternate, read-only), it lets the first checkpoint hash only the
// files that differ from what git already knows: seconds instead of minutes for 100 000 files, and no
// second copy of every file. The user's repository is only read, never written; the objects the
// checkpoints borrow from it are copied into the shadow repository by its maintenance
// (maintenance.ts), so a later `git gc` of theirs cannot take them away for long.

import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { makeDirs } from "../config/dirs.js";
import { carriedEntries, encodeIndex } from "./git-index.js";

interface SeedOptions {
  gitDir: string;
  realCwd: string;
  maxFileBytes: number;
  /** True for paths the shadow repository must never hold (relm's home inside the work tree). */
  excluded: (path: string) => boolean;
}

/** The user's repository containing `cwd`: its .git directory and the path of `cwd` inside it. */
function findUserRepo(realCwd: string): { dotGit: string; prefix: string } | undefined {
  let dir = realCwd;
  for (;;) {
    const dotGit = join(dir, ".git");
    try {
      if (statSync(dotGit).isDirectory()) {
        const rel = relative(dir, realCwd).split(sep).join("/");
        return { dotGit, prefix: rel ? `${rel}/` : "" };
      }
      return undefined; // a .git file (a worktree or submodule): not followed
    } catch {
      // none here: look further up
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/**
 * Writes the shadow index from the user's, when the shadow repository has none yet; returns the user's
 * object directory when it did (now an alternate of the shadow repository), else undefined.
 */
export function seedFromUserRepo(o: SeedOptions): string | undefined {
  const shadowIndex = join(o.gitDir, "index");
  if (existsSync(shadowIndex)) return undefined;
  const repo = findUserRepo(o.realCwd);
  if (!repo) return undefined;
  const objects = join(repo.dotGit, "objects");
  try {
    const config = readFileSync(join(repo.dotGit, "config"), "utf8");
    if (/objectformat\s*=\s*sha256/i.test(config)) return undefined; // the shadow repository is SHA-1
    if (!statSync(objects).isDirectory()) return undefined;
    const entries = carriedEntries(join(repo.dotGit, "index"), repo.prefix, o.maxFileBytes, (path) => {
      return !path.split("/").includes(".git") && !o.excluded(path);
    });
    if (entries.length === 0) return undefined;
    addAlternate(o.gitDir, objects);
    writeFileSync(`${shadowIndex}.relm-seed`, encodeIndex(entries), { mode: 0o600 });
    renameSync(`${shadowIndex}.relm-seed`, shadowIndex);
    return objects;
  } catch {
    return undefined; // no index, or one this reader does not understand: hash everything instead
  }
}

export function alternatesFile(gitDir: string): string {
  return join(gitDir, "objects", "info", "alternates");
}

function addAlternate(gitDir: string, objects: string): void {
  const file = alternatesFile(gitDir);
  const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
  if (lines.includes(objects)) return;
  makeDirs(dirname(file));
  writeFileSync(file, `${[...lines, objects].join("\n")}\n`);
}

/** Undoes a seed whose first use failed (an object the user's store lacks): the slow way instead. */
export function unseed(gitDir: string, objects: string): void {
  const file = alternatesFile(gitDir);
  try {
    const rest = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l && l !== objects);
    writeFileSync(file, rest.length ? `${rest.join("\n")}\n` : "");
  } catch {
    // no alternates: nothing to undo there
  }
  rmSync(join(gitDir, "index"), { force: true });
}
