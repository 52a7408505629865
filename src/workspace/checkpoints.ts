// File checkpoints: the working directory committed into a shadow git repository under $RELM_HOME before
// each turn that runs code, so a turn's file changes can be undone. The user's own .git is never read for
// history, never written and never consulted as GIT_DIR.

import { lstatSync, mkdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { CheckpointError, type GitContext, gitText, probeGit, runGit, shadowEnv, splitNul } from "./git.js";
import { RepoLock } from "./lock.js";
import { type Checkpoint, formatMessage, parseLog, type SkippedFile } from "./log.js";
import { readLooseCommitTree, readRef, writeCommit, writeRef } from "./objects.js";
import { restoreTree } from "./restore.js";
import { prepareShadow, shadowDirFor } from "./shadow.js";

export type { Checkpoint, SkippedFile } from "./log.js";

export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;
/** Git knows this tree without it being stored. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const MIN_GIT: [number, number] = [2, 20];

export interface CheckpointsOptions {
  /** $RELM_HOME */
  home: string;
  /** The working directory to snapshot (the session's cwd). */
  cwd: string;
  sessionId: string;
  /** Files larger than this are left out of snapshots (and left alone by restore); default 5 MB. */
  maxFileBytes?: number;
  /**
   * A snapshot refuses to take in more new files than this at once (default 100 000 files, 2 GiB): a
   * directory of data sets would otherwise be copied into $RELM_HOME. The error says what to ignore.
   */
  maxNewFiles?: number;
  maxNewBytes?: number;
  /** The git executable; default "git", looked up on env.PATH. */
  git?: string;
  /** The user's environment; only PATH, locale and the like reach git (never GIT_*). Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for another process's snapshot of the same directory; default 30 s. */
  lockWaitMs?: number;
}

export interface RestoreResult {
  /** The checkpoint restored (taken before this turn). */
  checkpoint: Checkpoint;
  /** Paths written back (changed since, or deleted since), relative to cwd. */
  changed: string[];
  /** Paths created after the checkpoint, now removed. */
  removed: string[];
  /** Paths created after the checkpoint but ignored under the restored .gitignore rules, left in place. */
  keptIgnored: string[];
  /** Files that were over the size limit when the checkpoint was taken, so could not be restored. */
  notRestored: SkippedFile[];
  /** A commit of the state just before this restore (ref refs/relm-undo/<session>), to get it back. */
  backup: string;
}

/** Why checkpoints are off, as a warning a user can act on. */
export interface Unavailable {
  unavailable: string;
}

export class Checkpoints {
  readonly ref: string;
  private readonly lock: RepoLock;
  /** The tree the index held after this instance last wrote it, and the index file's identity then. */
  private indexState: { tree: string; id: string } | undefined;
  /** The head of this session's ref as last read or written, so a snapshot need not ask git. */
  private last: { commit: string; tree: string } | undefined;

  private constructor(
    private readonly ctx: GitContext,
    readonly sessionId: string,
    readonly maxFileBytes: number,
    private readonly limits: { files: number; bytes: number },
    lockWaitMs: number,
  ) {
    this.ref = `refs/relm/${sessionId}`;
    this.lock = new RepoLock(join(ctx.gitDir, "relm.lock"), lockWaitMs);
  }

  /** The shadow repository's directory (GIT_DIR). */
  get gitDir(): string {
    return this.ctx.gitDir;
  }

  get cwd(): string {
    return this.ctx.workTree;
  }

  static async open(options: CheckpointsOptions): Promise<Checkpoints | Unavailable> {
    if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(options.sessionId) || options.sessionId.endsWith(".lock")) {
      throw new Error(`Invalid session id for checkpoints: ${JSON.stringify(options.sessionId)}`);
    }
    const userEnv = options.env ?? process.env;
    let realCwd: string;
    try {
      realCwd = realpathSync(options.cwd);
    } catch {
      return { unavailable: `file checkpoints are off: the working directory ${options.cwd} does not exist` };
    }
    if (realCwd === "/" || realCwd === safeRealpath(userEnv.HOME || homedir())) {
      return {
        unavailable:
          `file checkpoints are off in ${realCwd}: a snapshot would copy the whole ` +
          `${realCwd === "/" ? "file system" : "home directory"}; start relm in a project directory to get /undo`,
      };
    }
    const git = options.git ?? "git";
    const version = await probeGit(git, userEnv);
    if (!version) {
      return {
        unavailable:
          "file checkpoints are off: git was not found on PATH; install git to get /undo and checkpoints",
      };
    }
    if (version[0] < MIN_GIT[0] || (version[0] === MIN_GIT[0] && version[1] < MIN_GIT[1])) {
      return {
        unavailable: `file checkpoints are off: git ${version.join(".")} is too old (need ${MIN_GIT.join(".")} or newer)`,
      };
    }
    mkdirSync(join(resolve(options.home), "checkpoints"), { recursive: true, mode: 0o700 });
    const gitDir = shadowDirFor(resolve(options.home), realCwd);
    mkdirSync(gitDir, { recursive: true, mode: 0o700 });
    const ctx: GitContext = { git, gitDir, workTree: realCwd, env: shadowEnv(userEnv, gitDir, realCwd) };
    const cp = new Checkpoints(
      ctx,
      options.sessionId,
      options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      { files: options.maxNewFiles ?? 100_000, bytes: options.maxNewBytes ?? 2 * 1024 ** 3 },
      options.lockWaitMs ?? 30_000,
    );
    const home = safeRealpath(options.home);
    await cp.lock.run(() => prepareShadow({ ctx, realCwd, home, userEnv }));
    return cp;
  }

  /** Commits the whole work tree as the state before `turn`. Unchanged files cost a stat each. */
  snapshot(turn: number, label?: string): Promise<Checkpoint> {
    return this.lock.run(async () => {
      const { tree, skipped, warnings, base, changes } = await this.stage();
      const head = await this.head();
      const time = new Date();
      const message = formatMessage({ turn, label, sessionId: this.sessionId, time, skipped });
      const commit = writeCommit(this.gitDir, tree, head ? [head.commit] : [], message, time);
      writeRef(this.gitDir, this.ref, commit);
      this.last = { commit, tree };
      const before = head?.tree ?? EMPTY_TREE;
      // `add -v` names every path it changed in the index; when the index held exactly the previous
      // checkpoint, that is the count, and a fourth git call is saved.
      const filesChanged =
        before === tree ? 0 : base === before ? changes : await this.countChanges(before, tree);
      const checkpoint: Checkpoint = {
        turn,
        time: time.toISOString(),
        commit,
        tree,
        filesChanged,
        skipped,
        warnings,
      };
      if (label !== undefined) checkpoint.label = label;
      return checkpoint;
    });
  }

  /** This session's checkpoints, oldest first. */
  list(): Promise<Checkpoint[]> {
    return this.lock.run(() => this.listUnlocked());
  }

  /**
   * Puts the work tree back as it was before `turn` (or, when that turn has no checkpoint, before the
   * next turn that has one: turns in between ran no code). Files created since are removed; ignored
   * files, files over the size limit and the user's .git are left alone.
   */
  restore(turn: number): Promise<RestoreResult> {
    return this.lock.run(async () => {
      const all = await this.listUnlocked();
      if (all.length === 0)
        throw new CheckpointError(`session ${this.sessionId} has no checkpoints in ${this.cwd}`);
      const target = all.findLast((c) => c.turn === turn) ?? all.find((c) => c.turn > turn);
      if (!target) {
        const turns = all.map((c) => c.turn).join(", ");
        throw new CheckpointError(
          `no checkpoint at or after turn ${turn}; checkpoints exist before turns ${turns}`,
        );
      }
      // An undo must see everything the agent created, however much: no flood limit here.
      const { tree: current } = await this.stage(false);
      const head = await this.head();
      const message = `before restoring turn ${target.turn}\n\nRelm-Session: ${this.sessionId}\n`;
      const backup = writeCommit(this.gitDir, current, head ? [head.commit] : [], message, new Date());
      writeRef(this.gitDir, `refs/relm-undo/${this.sessionId}`, backup);
      this.clearStaleIndexLock();
      const { changed, removed, keptIgnored } = await restoreTree(this.ctx, current, target.tree);
      return { checkpoint: target, changed, removed, keptIgnored, notRestored: target.skipped, backup };
    });
  }

  /** The tree hash of the work tree as snapshots see it; equal hashes mean no change in the workspace. */
  fingerprint(): Promise<string> {
    return this.lock.run(async () => (await this.stage()).tree);
  }

  private async listUnlocked(): Promise<Checkpoint[]> {
    if (!(await this.head())) return [];
    const log = await runGit(this.ctx, [
      "log",
      "--no-renames",
      "--root",
      "--name-only",
      "--format=%x1e%H%x1f%T%x1f%B%x1f",
      this.ref,
    ]);
    return parseLog(log.stdout.toString("utf8")).reverse();
  }

  private async head(): Promise<{ commit: string; tree: string } | undefined> {
    const commit = readRef(this.gitDir, this.ref);
    if (!commit) return undefined;
    if (this.last?.commit === commit) return this.last;
    const tree =
      readLooseCommitTree(this.gitDir, commit) ??
      (await gitText(this.ctx, ["rev-parse", `${commit}^{tree}`]));
    this.last = { commit, tree };
    return this.last;
  }

  private async countChanges(from: string, to: string): Promise<number> {
    const out = await runGit(this.ctx, ["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to]);
    return splitNul(out.stdout).length;
  }

  /**
   * Brings the index up to the work tree and writes its tree, in three git calls: every git process costs
   * 10–30 ms to start, so that count is what keeps a snapshot of an unchanged tree fast. Untracked files
   * are checked against the size limit before `add` reads them; a tracked file that grew past it is seen
   * in `add -v`'s report and taken out again (that file is read once).
   */
  private async stage(limited = true): Promise<Staged> {
    this.clearStaleIndexLock();
    // The index is shared with other sessions in this directory: trust what it held only if nobody
    // rewrote it since this instance wrote its tree.
    const base = this.indexState?.id === this.indexId() ? this.indexState.tree : undefined;
    const untracked = splitNul(
      (await runGit(this.ctx, ["ls-files", "-z", "--others", "--exclude-standard"])).stdout,
    );
    const { skipped, bytes } = this.measure(untracked);
    if (limited && (untracked.length - skipped.length > this.limits.files || bytes > this.limits.bytes)) {
      throw new CheckpointError(
        `${untracked.length} new files (${(bytes / 1024 ** 2).toFixed(0)} MB) in ${this.cwd} are more than a ` +
          `checkpoint takes in at once (${this.limits.files} files, ${(this.limits.bytes / 1024 ** 2).toFixed(0)} MB); ` +
          "list data or build directories in .gitignore to checkpoint the rest",
      );
    }
    const excluded = skipped.map((s) => `:(exclude,literal)${s.path}`);
    // --ignore-errors: an unreadable file costs that file, not the whole snapshot.
    const added = await runGit(this.ctx, ["add", "-A", "-v", "--ignore-errors", "--", ".", ...excluded], {
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
    const grown = this.measure(updated).skipped;
    if (grown.length > 0) {
      // Leaving it in would snapshot the large content; leaving the old entry would snapshot stale content.
      await runGit(this.ctx, ["update-index", "-z", "--force-remove", "--stdin"], {
        input: `${grown.map((s) => s.path).join("\0")}\0`,
      });
      skipped.push(...grown);
    }
    const tree = await gitText(this.ctx, ["write-tree"]);
    this.indexState = { tree, id: this.indexId() };
    return { tree, skipped, warnings, base, changes };
  }

  /** Identity of the index file's current version (git replaces it on every write). */
  private indexId(): string {
    try {
      const st = statSync(join(this.gitDir, "index"), { bigint: true });
      return `${st.ino}:${st.size}:${st.mtimeNs}`;
    } catch {
      return "";
    }
  }

  /** Files over the size limit among `paths`, and the bytes of the others. */
  private measure(paths: string[]): { skipped: SkippedFile[]; bytes: number } {
    const skipped: SkippedFile[] = [];
    let bytes = 0;
    for (const path of paths) {
      try {
        const st = lstatSync(join(this.cwd, path));
        if (!st.isFile()) continue;
        if (st.size > this.maxFileBytes) skipped.push({ path, bytes: st.size });
        else bytes += st.size;
      } catch {
        // Gone since git listed it; `add -A` has recorded that.
      }
    }
    return { skipped, bytes };
  }

  /** Only relm runs git on this repository, and only under our lock: an index.lock now is a killed git's. */
  private clearStaleIndexLock(): void {
    rmSync(join(this.ctx.gitDir, "index.lock"), { force: true });
  }
}

interface Staged {
  tree: string;
  skipped: SkippedFile[];
  warnings: string[];
  /** The tree the index held before staging, when known. */
  base: string | undefined;
  /** Paths `add` changed in the index. */
  changes: number;
}

function warningLines(stderr: string): string[] {
  return stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .slice(0, 20);
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
