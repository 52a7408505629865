// The whole work tree into the shadow index and a tree, by git: what a checkpoint does the first time, when
// the watcher cannot vouch for what changed, and before a restore.

import { closeSync, lstatSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { CheckpointError, type GitContext, gitText, runGit, splitNul } from "./git.js";
import type { SkippedFile } from "./log.js";

export interface Staged {
  tree: string;
  skipped: SkippedFile[];
  warnings: string[];
  /** The tree the index (or the checkpoint being extended) held before staging, when known. */
  base: string | undefined;
  /** Paths changed relative to `base`. */
  changes: number;
  /** Paths in the tree, when a full scan just wrote it (the first checkpoint's count of changes). */
  paths?: number;
}

interface FullStageOptions {
  ctx: GitContext;
  cwd: string;
  maxFileBytes: number;
  /** New files (count, bytes) one snapshot takes in at most; undefined = no limit (a restore). */
  limits: { files: number; bytes: number } | undefined;
  /** The tree the index held when last written by this instance, if the index is unchanged since. */
  base: string | undefined;
}

/**
 * Brings the index up to the work tree and writes its tree, in three git calls: every git process costs
 * 10–30 ms to start, so that count is what keeps a snapshot of an unchanged tree fast. Untracked files
 * are checked against the size limit before `add` reads them; a tracked file that grew past it is seen
 * in `add -v`'s report and taken out again (that file is read once).
 */
export async function fullStage(o: FullStageOptions): Promise<Staged> {
  const { ctx } = o;
  clearStaleIndexLock(ctx);
  const untracked = splitNul(
    (await runGit(ctx, ["ls-files", "-z", "--others", "--exclude-standard"])).stdout,
  );
  const { skipped, bytes } = measure(o.cwd, untracked, o.maxFileBytes);
  const limits = o.limits;
  if (limits && (untracked.length - skipped.length > limits.files || bytes > limits.bytes)) {
    throw new TooManyNewFiles(
      `${untracked.length} new files (${(bytes / 1024 ** 2).toFixed(0)} MB) in ${o.cwd} are more than a ` +
        `checkpoint takes in at once (${limits.files} files, ${(limits.bytes / 1024 ** 2).toFixed(0)} MB); ` +
        "list data or build directories in .gitignore to checkpoint the rest",
    );
  }
  const excluded = skipped.map((s) => `:(exclude,literal)${s.path}`);
  // --ignore-errors: an unreadable file costs that file, not the whole snapshot.
  const added = await runGit(ctx, ["add", "-A", "-v", "--ignore-errors", "--", ".", ...excluded], {
    okCodes: [1],
  });
  const warnings = added.code === 0 ? [] : warningLines(added.stderr);
  const known = new Set(untracked);
  const report = added.stdout
    .toString("utf8")
    .split("\n")
    .filter((l) => (l.startsWith("add '") || l.startsWith("remove '")) && l.endsWith("'"));
  const changes = new Set(report.map((l) => l.slice(l.indexOf("'") + 1, -1))).size;
  const updated = report
    .filter((l) => l.startsWith("add '"))
    .map((l) => l.slice(5, -1))
    .filter((p) => !known.has(p));
  const grown = measure(o.cwd, updated, o.maxFileBytes).skipped;
  if (grown.length > 0) {
    // Leaving it in would snapshot the large content; leaving the old entry would snapshot stale content.
    await runGit(ctx, ["update-index", "-z", "--force-remove", "--stdin"], {
      input: `${grown.map((s) => s.path).join("\0")}\0`,
    });
    skipped.push(...grown);
  }
  const tree = await gitText(ctx, ["write-tree"]);
  return { tree, skipped, warnings, base: o.base, changes, paths: indexEntries(ctx.gitDir) };
}

/** The number of entries in the index (its header says), i.e. of paths in the tree just written from it. */
function indexEntries(gitDir: string): number | undefined {
  try {
    const fd = openSync(join(gitDir, "index"), "r");
    try {
      const header = Buffer.alloc(12);
      readSync(fd, header, 0, 12, 0);
      return header.toString("latin1", 0, 4) === "DIRC" ? header.readUInt32BE(8) : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** A snapshot refused for taking in too much at once (the error says what to ignore). */
export class TooManyNewFiles extends CheckpointError {}

/** Identity of the index file's current version (git replaces it on every write). */
export function indexId(gitDir: string): string {
  try {
    const st = statSync(join(gitDir, "index"), { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}`;
  } catch {
    return "";
  }
}

/** Only relm runs git on this repository, and only under our lock: an index.lock now is a killed git's. */
export function clearStaleIndexLock(ctx: GitContext): void {
  rmSync(join(ctx.gitDir, "index.lock"), { force: true });
}

/** Files over the size limit among `paths`, and the bytes of the others. */
function measure(
  cwd: string,
  paths: string[],
  maxFileBytes: number,
): { skipped: SkippedFile[]; bytes: number } {
  const skipped: SkippedFile[] = [];
  let bytes = 0;
  for (const path of paths) {
    try {
      const st = lstatSync(join(cwd, path));
      if (!st.isFile()) continue;
      if (st.size > maxFileBytes) skipped.push({ path, bytes: st.size });
      else bytes += st.size;
    } catch {
      // Gone since git listed it; `add -A` has recorded that.
    }
  }
  return { skipped, bytes };
}

function warningLines(stderr: string): string[] {
  return stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .slice(0, 20);
}
