// Putting a checkpoint's tree back into the work tree without ever deleting an ignored file.
//
// A plain `read-tree --reset -u TARGET` removes every file the current snapshot has and the target lacks.
// That is wrong when the ignore rules changed in between: if the agent deleted .gitignore, node_modules/
// or .env become part of the current snapshot and would be deleted. So files to remove are first kept,
// the target's files (its .gitignore included) are written, and only then is each candidate checked
// against the restored ignore rules; ignored ones stay.

import { chmodSync, lstatSync, readdirSync, rmdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { type GitContext, gitText, runGit, splitNul } from "./git.js";

interface TreeRestore {
  changed: string[];
  removed: string[];
  /** Files the target lacks that are ignored under its rules, left in place. */
  keptIgnored: string[];
}

function isUnder(path: string, dir: string): boolean {
  return path.startsWith(`${dir}/`);
}

/** `current` must be the tree of the index right now (the work tree just staged). */
export async function restoreTree(ctx: GitContext, current: string, target: string): Promise<TreeRestore> {
  const diff = splitNul(
    (await runGit(ctx, ["diff-tree", "-r", "-z", "--no-renames", "--raw", current, target])).stdout,
  );
  const changed: string[] = [];
  const candidates: string[] = [];
  /** Target mode of each changed path ("100644", "100755", "120000", ...). */
  const modes = new Map<string, string>();
  for (let i = 0; i + 1 < diff.length; i += 2) {
    // ":OLDMODE NEWMODE OLDOID NEWOID STATUS"
    const [, newMode, , , status] = (diff[i] as string).split(" ");
    const path = diff[i + 1] as string;
    if (status === "D") candidates.push(path);
    else {
      changed.push(path);
      modes.set(path, newMode ?? "");
    }
  }
  if (changed.length + candidates.length === 0) return { changed, removed: [], keptIgnored: [] };
  const permissions = currentPermissions(ctx.workTree, changed);

  // A candidate in the way of a restored path (a file where the target has a directory, or the reverse)
  // cannot be kept; the target wins there.
  const blocked = new Set(candidates.filter((c) => changed.some((p) => isUnder(p, c) || isUnder(c, p))));
  const keep = candidates.filter((c) => !blocked.has(c));
  const interim = await treeWith(ctx, target, current, keep);
  await runGit(ctx, ["read-tree", "--reset", "-u", interim]);
  keepPermissions(ctx.workTree, permissions, modes);

  const ignored = new Set<string>();
  if (keep.length > 0) {
    const out = await runGit(ctx, ["check-ignore", "-z", "--stdin", "--no-index"], {
      input: `${keep.join("\0")}\0`,
      okCodes: [1],
    });
    for (const p of splitNul(out.stdout)) ignored.add(p);
  }
  const removed = [...blocked];
  for (const path of keep) {
    if (ignored.has(path)) continue;
    rmSync(join(ctx.workTree, path), { force: true });
    pruneEmptyParents(ctx.workTree, path);
    removed.push(path);
  }
  // The index must describe the target; unchanged entries keep their stat data, so the next snapshot
  // stays incremental.
  if (interim !== target) await runGit(ctx, ["read-tree", "--reset", target]);
  return { changed, removed: removed.sort(), keptIgnored: [...ignored].sort() };
}

/** `target` plus the `paths` as they are in `current`, written as a tree through a scratch index. */
async function treeWith(ctx: GitContext, target: string, current: string, paths: string[]): Promise<string> {
  if (paths.length === 0) return target;
  const scratch = { ...ctx, env: { ...ctx.env, GIT_INDEX_FILE: join(ctx.gitDir, "index.relm-restore") } };
  try {
    await runGit(scratch, ["read-tree", target]);
    const wanted = new Set(paths);
    // ls-tree lines are "MODE TYPE OID\tPATH", a form --index-info accepts as is.
    const entries = splitNul((await runGit(scratch, ["ls-tree", "-r", "-z", "--full-tree", current])).stdout)
      .filter((line) => wanted.has(line.slice(line.indexOf("\t") + 1)))
      .map((line) => `${line}\0`)
      .join("");
    await runGit(scratch, ["update-index", "--add", "-z", "--index-info"], { input: entries });
    return await gitText(scratch, ["write-tree"]);
  } finally {
    rmSync(join(ctx.gitDir, "index.relm-restore"), { force: true });
  }
}

/** Permission bits of the regular files about to be rewritten. */
function currentPermissions(root: string, paths: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const path of paths) {
    try {
      const st = lstatSync(join(root, path));
      if (st.isFile()) out.set(path, st.mode & 0o777);
    } catch {
      // Deleted since: it comes back with git's default mode.
    }
  }
  return out;
}

/**
 * Git writes files as 0644 or 0755 less the umask, so a private file (a 0600 credentials file) would come
 * back readable by others. Its own permission bits are put back, with the executable bits from the target.
 */
function keepPermissions(root: string, before: Map<string, number>, modes: Map<string, string>): void {
  for (const [path, old] of before) {
    const mode = modes.get(path);
    if (mode !== "100644" && mode !== "100755") continue;
    const readable = old & 0o444;
    const wanted = mode === "100755" ? old | (readable >> 2) : old & ~0o111;
    try {
      const st = lstatSync(join(root, path));
      if (st.isFile() && (st.mode & 0o777) !== wanted) chmodSync(join(root, path), wanted);
    } catch {
      // Not there after all (blocked by a directory): nothing to adjust.
    }
  }
}

function pruneEmptyParents(root: string, path: string): void {
  let dir = dirname(path);
  while (dir !== "." && dir !== "/" && dir !== "") {
    const abs = join(root, dir);
    try {
      if (readdirSync(abs).length > 0) return;
      rmdirSync(abs);
    } catch {
      return;
    }
    dir = dirname(dir);
  }
}
