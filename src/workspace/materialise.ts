// A checkpoint written out as plain files in another folder (a scratch copy for a replay). Only reads
// the shadow repository: the index used is a temporary one, and neither the working directory the
// checkpoint was taken of nor the shadow's own index is touched.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { makeDirs } from "../config/dirs.js";
import { realPath } from "../config/paths.js";
import { CheckpointError, type GitContext, runGit, shadowEnv } from "./git.js";
import { shadowDirFor } from "./shadow.js";

interface MaterialiseOptions {
  /** $RELM_HOME, where the shadow repositories are. */
  home: string;
  /** The working directory the checkpoint was taken of (the session's cwd). */
  cwd: string;
  /** The checkpoint's commit (a journal `checkpoint` event's `commit`). */
  commit: string;
  /** An empty or new folder to write the files into. */
  dest: string;
  git?: string;
  env?: NodeJS.ProcessEnv;
}

/** Writes the files of checkpoint `commit` into `dest`. Files left out of it (too large, ignored) are absent. */
export async function materialiseCheckpoint(options: MaterialiseOptions): Promise<void> {
  const gitDir = shadowDirFor(resolve(options.home), realPath(options.cwd));
  makeDirs(options.dest);
  const scratch = mkdtempSync(join(tmpdir(), "relm-index-"));
  const env = {
    ...shadowEnv(options.env ?? process.env, gitDir, options.dest),
    GIT_INDEX_FILE: join(scratch, "index"),
  };
  const ctx: GitContext = { git: options.git ?? "git", gitDir, workTree: options.dest, env };
  try {
    await runGit(ctx, ["read-tree", `${options.commit}^{tree}`]);
    await runGit(ctx, ["checkout-index", "--all", "--force"]);
  } catch (error) {
    if (error instanceof CheckpointError) {
      throw new CheckpointError(
        `checkpoint ${options.commit.slice(0, 12)} of ${options.cwd} cannot be read from ${gitDir}: ${error.message}`,
      );
    }
    throw error;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
