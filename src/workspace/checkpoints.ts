// File checkpoints: the working directory committed into a shadow git repository under $RELM_HOME before
// each turn that runs code, so a turn's file changes can be undone. The user's own .git is never read for
// history, never written and never consulted as GIT_DIR; a new shadow repository only reads its index and
// borrows its objects (seed.ts).

import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { makeDirs } from "../config/dirs.js";
import { realPath, within } from "../config/paths.js";
import { withoutSecrets } from "../config/secret-env.js";
import { clearStaleIndexLock, fullStage, indexId, type Staged, TooManyNewFiles } from "./full-stage.js";
import { CheckpointError, type GitContext, gitText, probeGit, runGit, shadowEnv, splitNul } from "./git.js";
import { applyChanges } from "./incremental.js";
import { RepoLock } from "./lock.js";
import { type Checkpoint, formatMessage, parseLog, type SkippedFile } from "./log.js";
import { type MaintenanceResult, maintain } from "./maintenance.js";
import { readLooseCommitTree, readRef, writeCommit, writeRef } from "./objects.js";
import { restoreTree } from "./restore.js";
import { readSame, recordSame } from "./same.js";
import { seedFromUserRepo, unseed } from "./seed.js";
import { prepareShadow, shadowDirFor } from "./shadow.js";
import { EMPTY_TREE, TreeStore } from "./trees.js";
import { TreeWatcher } from "./watch.js";

export type { Checkpoint } from "./log.js";

const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;
const MIN_GIT: [number, number] = [2, 20];
/** Even with a watcher, the whole tree is scanned this often (a change it missed is caught then). */
const FULL_SCAN_EVERY_MS = 10 * 60_000;
/** A refused snapshot (too many new files) is tried again after this long, or when a .gitignore changes. */
const RETRY_REFUSED_MS = 10 * 60_000;
/** Snapshots between looks at whether the repository wants packing. */
const MAINTAIN_EVERY = 50;

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
  /** The git executable; default "git", looked up on env.PATH. */
  git?: string;
  /** The user's environment; only PATH, locale and the like reach git (never GIT_*). Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for another process's snapshot of the same directory; default 30 s. */
  lockWaitMs?: number;
  /**
   * Watch the work tree for changes (inotify), so a snapshot costs what changed rather than a stat of
   * every file; for a session that takes many snapshots. Default false (one-off commands).
   */
  watch?: boolean;
  /** Pack the shadow repository in the background when it needs it; default: as `watch`. */
  maintain?: boolean;
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
  /** The work tree's tree as of the last staging; what changed since is the watcher's to say. */
  private current: string | undefined;
  /** Files over the size limit as of the last staging. */
  private tooLarge = new Map<string, number>();
  private lastFullScan = 0;
  /** The last refusal (too many new files): repeated without a scan until something may have changed. */
  private refused: { message: string; at: number } | undefined;
  private watcher: TreeWatcher | undefined;
  private watchReady: Promise<void> = Promise.resolve();
  private readonly trees: TreeStore;
  private sinceMaintenance = 0;
  private maintaining: Promise<MaintenanceResult> | undefined;
  /** The user's object store this repository was just seeded from (seed.ts), until a full scan used it. */
  private seededFrom: string | undefined;

  private constructor(
    private readonly ctx: GitContext,
    readonly sessionId: string,
    readonly maxFileBytes: number,
    private readonly limits: { files: number; bytes: number },
    lockWaitMs: number,
    private readonly autoMaintain: boolean,
  ) {
    this.ref = `refs/relm/${sessionId}`;
    this.lock = new RepoLock(join(ctx.gitDir, "relm.lock"), lockWaitMs);
    this.trees = new TreeStore(ctx);
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
    // No secrets for any git relm runs (provider keys, URLs with a password): git has no use for them,
    // and a cell could read them in /proc/PID/environ of a git that is running (`cat-file --batch` runs
    // as long as the session).
    const userEnv = withoutSecrets(options.env ?? process.env);
    let realCwd: string;
    try {
      realCwd = realpathSync(options.cwd);
    } catch {
      return { unavailable: `file checkpoints are off: the working directory ${options.cwd} does not exist` };
    }
    if (realCwd === "/" || realCwd === realPath(userEnv.HOME || homedir())) {
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
    makeDirs(join(resolve(options.home), "checkpoints"), 0o700);
    const gitDir = shadowDirFor(resolve(options.home), realCwd);
    makeDirs(gitDir, 0o700);
    const ctx: GitContext = { git, gitDir, workTree: realCwd, env: shadowEnv(userEnv, gitDir, realCwd) };
    const cp = new Checkpoints(
      ctx,
      options.sessionId,
      options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      { files: options.maxNewFiles ?? 100_000, bytes: 2 * 1024 ** 3 },
      options.lockWaitMs ?? 30_000,
      options.maintain ?? options.watch ?? false,
    );
    const home = realPath(options.home);
    const homeInside = within(home, realCwd);
    const homePath = relative(realCwd, home).split(sep).join("/");
    const underHome = (path: string) =>
      homeInside && (homePath === "" || path === homePath || path.startsWith(`${homePath}/`));
    await cp.lock.run(async () => {
      await prepareShadow({ ctx, realCwd, home, userEnv });
      cp.seededFrom = seedFromUserRepo({
        gitDir,
        realCwd,
        maxFileBytes: cp.maxFileBytes,
        excluded: underHome,
      });
    });
    // Linux only: elsewhere fs.watch's notices are coalesced or late in ways a checkpoint cannot trust.
    if (options.watch && process.platform === "linux") cp.startWatching(underHome);
    return cp;
  }

  /** Stops watching the work tree (a session that ends). Snapshots still work, scanning everything. */
  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.trees.close();
  }

  /** Packs the shadow repository if it needs it (also done by itself in the background); for tests. */
  maintain(): Promise<MaintenanceResult> {
    this.maintaining ??= maintain(this.ctx).finally(() => {
      this.maintaining = undefined;
    });
    return this.maintaining;
  }

  private startWatching(underHome: (path: string) => boolean): void {
    const watcher = new TreeWatcher(this.cwd);
    this.watcher = watcher;
    this.watchReady = (async () => {
      // Ignored directories are not watched (node_modules would cost thousands of watches).
      let ignored = new Set<string>();
      try {
        const out = await runGit(this.ctx, [
          "ls-files",
          "-z",
          "-o",
          "-i",
          "--directory",
          "--exclude-standard",
        ]);
        ignored = new Set(
          splitNul(out.stdout)
            .filter((p) => p.endsWith("/"))
            .map((p) => p.slice(0, -1)),
        );
      } catch {
        // Then everything is watched.
      }
      await watcher.start((dir) => ignored.has(dir) || underHome(dir));
    })().catch(() => watcher.invalidate());
  }

  /**
   * Commits the whole work tree as the state before `turn`. Unchanged files cost a stat each; an unchanged
   * tree costs no commit: the turn is recorded as the same as the last checkpoint (same.ts).
   */
  snapshot(turn: number, label?: string): Promise<Checkpoint> {
    return this.lock.run(async () => {
      const { tree, skipped, warnings, base, changes, paths } = await this.stage();
      const head = await this.head();
      const time = new Date();
      const checkpoint: Checkpoint = {
        turn,
        time: time.toISOString(),
        commit: "",
        tree,
        filesChanged: 0,
        skipped,
        warnings,
      };
      if (head && head.tree === tree && label === undefined) {
        recordSame(this.gitDir, this.sessionId, { turn, commit: head.commit, time: checkpoint.time });
        this.afterSnapshot();
        return { ...checkpoint, commit: head.commit };
      }
      const message = formatMessage({ turn, label, sessionId: this.sessionId, time, skipped });
      checkpoint.commit = writeCommit(this.gitDir, tree, head ? [head.commit] : [], message, time);
      writeRef(this.gitDir, this.ref, checkpoint.commit);
      this.last = { commit: checkpoint.commit, tree };
      this.afterSnapshot();
      const before = head?.tree ?? EMPTY_TREE;
      // `add -v` names every path it changed in the index; when the index held exactly the previous
      // checkpoint, that is the count, and a fourth git call is saved.
      if (before !== tree)
        checkpoint.filesChanged =
          base === before
            ? changes
            : before === EMPTY_TREE && paths !== undefined
              ? paths // the first checkpoint: every path, counted from the index's header
              : await this.countChanges(before, tree);
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
      // An undo must see everything the agent created, however much: no flood limit here; and the index
      // must hold the work tree for the restore, so a full scan.
      const { tree: current } = await this.stage(false, true);
      const head = await this.head();
      const message = `before restoring turn ${target.turn}\n\nRelm-Session: ${this.sessionId}\n`;
      const backup = writeCommit(this.gitDir, current, head ? [head.commit] : [], message, new Date());
      writeRef(this.gitDir, `refs/relm-undo/${this.sessionId}`, backup);
      clearStaleIndexLock(this.ctx);
      const { changed, removed, keptIgnored } = await restoreTree(this.ctx, current, target.tree);
      this.current = undefined; // files were rewritten: the next snapshot scans everything
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
    const commits = parseLog(log.stdout.toString("utf8")).reverse();
    const byCommit = new Map(commits.map((c) => [c.commit, c]));
    // Turns that changed nothing: each the state of the commit it names, as a commit of it would be.
    const same = readSame(this.gitDir, this.sessionId).flatMap((s): Checkpoint[] => {
      const of = byCommit.get(s.commit);
      return of
        ? [
            {
              turn: s.turn,
              time: s.time,
              commit: of.commit,
              tree: of.tree,
              filesChanged: 0,
              skipped: of.skipped,
            },
          ]
        : [];
    });
    if (same.length === 0) return commits;
    // In the order taken: by turn (a turn has one checkpoint), a commit before a same-turn record of it.
    return [...commits, ...same].sort((a, b) => a.turn - b.turn);
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
   * The work tree as a tree: from the last one and what the watcher saw change when it can vouch for
   * that (a few files read, a few trees written), else by a full scan through the index (full-stage.ts).
   */
  private async stage(limited = true, full = false): Promise<Staged> {
    await this.watchReady;
    // Change notices queued before this point (a cell's last writes) are read by the event loop first:
    // one full turn of it, polling, runs between these two hops.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    // Taken first: whatever changes from now on is the next snapshot's.
    const changes = this.watcher?.take() ?? { all: true, paths: [] };
    const now = Date.now();
    if (limited && this.refused) {
      const rules = changes.paths.some((p) => p.split("/").includes(".gitignore"));
      if (!rules && now - this.refused.at < RETRY_REFUSED_MS) throw new TooManyNewFiles(this.refused.message);
    }
    const base = this.current;
    if (!full && !changes.all && base !== undefined && now - this.lastFullScan < FULL_SCAN_EVERY_MS) {
      if (changes.paths.length === 0) {
        return { tree: base, skipped: this.skippedList(), warnings: [], base, changes: 0 };
      }
      const increment = await applyChanges(base, changes.paths, {
        ctx: this.ctx,
        trees: this.trees,
        watcher: this.watcher as TreeWatcher,
        maxFileBytes: this.maxFileBytes,
      }).finally(() => this.trees.close());
      if (increment !== "full") {
        for (const [path, bytes] of increment.skipped) {
          if (bytes === undefined) this.tooLarge.delete(path);
          else this.tooLarge.set(path, bytes);
        }
        this.current = increment.tree;
        return {
          tree: increment.tree,
          skipped: this.skippedList(),
          warnings: increment.warnings,
          base,
          changes: increment.changed,
        };
      }
    }
    return this.scan(limited);
  }

  private async scan(limited: boolean): Promise<Staged> {
    this.current = undefined;
    const options = {
      ctx: this.ctx,
      cwd: this.cwd,
      maxFileBytes: this.maxFileBytes,
      limits: limited ? this.limits : undefined,
      // The index is shared with other sessions in this directory: trust what it held only if nobody
      // rewrote it since this instance wrote its tree.
      base: this.indexState?.id === indexId(this.gitDir) ? this.indexState.tree : undefined,
    };
    let staged: Staged;
    try {
      staged = await fullStage(options);
    } catch (error) {
      if (error instanceof TooManyNewFiles) {
        this.refused = { message: error.message, at: Date.now() };
        throw error;
      }
      if (!this.seededFrom) throw error;
      // The user's index named an object their store does not have (a partial clone?): start empty.
      unseed(this.gitDir, this.seededFrom);
      this.seededFrom = undefined;
      staged = await fullStage({ ...options, base: undefined });
    }
    this.refused = undefined;
    this.seededFrom = undefined;
    this.indexState = { tree: staged.tree, id: indexId(this.gitDir) };
    this.current = staged.tree;
    this.lastFullScan = Date.now();
    this.tooLarge = new Map(staged.skipped.map((s) => [s.path, s.bytes]));
    this.sinceMaintenance = MAINTAIN_EVERY; // a scan may have stored many objects: look soon
    return staged;
  }

  private skippedList(): SkippedFile[] {
    return [...this.tooLarge].map(([path, bytes]) => ({ path, bytes }));
  }

  private afterSnapshot(): void {
    if (!this.autoMaintain || ++this.sinceMaintenance < MAINTAIN_EVERY) return;
    this.sinceMaintenance = 0;
    void this.maintain();
  }
}
