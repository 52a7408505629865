// Which paths of the work tree changed since the last checkpoint, from the file system's own change
// notices (inotify, through fs.watch on each directory), so that a checkpoint costs what changed and not
// a stat of every file. Whatever the watcher cannot vouch for (an error, a name it could not decode, too
// many changes at once, the limit on watched directories) makes the next checkpoint scan everything, as
// it would without a watcher.

import { type FSWatcher, type Stats, statSync, watch } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";

/** Past this many changed paths a full scan is cheaper than looking at each. */
export const MAX_CHANGES = 2000;
const MAX_DIRS = 20_000;

interface Changes {
  /** Everything must be looked at: the watcher missed something, or nothing is known yet. */
  all: boolean;
  /** Changed paths relative to the work tree ("/"-separated), files or directories. */
  paths: string[];
}

export class TreeWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  /**
   * The directory each watch is on, as inode and birth time: a directory deleted and made again under the
   * same name is another, though ext4 often hands it the same inode number at once.
   */
  private readonly identities = new Map<string, string>();
  private dirty = new Set<string>();
  private lost = true; // nothing is known until start() has set up every watch
  /** Why watching stopped for good (the checkpoints then scan everything every time). */
  stopped: string | undefined;

  constructor(private readonly root: string) {}

  /**
   * Watches every directory under the root except `.git`, nested repositories and the `skip` ones
   * (ignored directories, relm's home). Changes made while this runs count: the first checkpoint after
   * it scans everything anyway.
   */
  async start(skip: (relDir: string) => boolean): Promise<void> {
    const queue = [""];
    for (let next = 0; next < queue.length && !this.stopped; next++) {
      const dir = queue[next] as string;
      this.add(dir);
      let entries: import("node:fs").Dirent[];
      try {
        entries = await readdir(join(this.root, dir), { withFileTypes: true });
      } catch {
        continue; // gone meanwhile
      }
      if (entries.some((e) => e.name === ".git") && dir !== "") {
        this.remove(dir); // a nested repository: git records its commit, not its files
        continue;
      }
      for (const e of entries) {
        if (!e.isDirectory() || e.name === ".git") continue;
        const rel = dir ? `${dir}/${e.name}` : e.name;
        if (!skip(rel)) queue.push(rel);
      }
    }
  }

  /** The changes since the last call (all of them when anything was missed), and starts afresh. */
  take(): Changes {
    const changes = { all: this.lost || this.stopped !== undefined, paths: [...this.dirty] };
    this.dirty = new Set();
    this.lost = false;
    return changes;
  }

  /** Marks everything as changed (the next checkpoint scans the whole tree). */
  invalidate(): void {
    this.lost = true;
    this.dirty.clear();
  }

  /** Watches a directory that appeared after start() (known now not to be ignored). */
  add(dir: string): void {
    if (this.stopped || this.watchers.has(dir)) return;
    if (this.watchers.size >= MAX_DIRS) {
      this.stop(`more than ${MAX_DIRS} directories to watch`);
      return;
    }
    try {
      const w = watch(join(this.root, dir), { persistent: false }, (_event, name) => this.changed(dir, name));
      w.on("error", () => {
        this.lost = true;
        this.remove(dir);
      });
      this.watchers.set(dir, w);
      this.identities.set(dir, identity(statSync(join(this.root, dir))));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOSPC" || code === "EMFILE") {
        this.stop("the system's limit on watched directories (fs.inotify.max_user_watches) is reached");
      } else this.lost = true; // gone meanwhile, or not readable: a full scan will tell
    }
  }

  /** Stops watching a directory and everything below it (deleted or renamed away). */
  remove(dir: string): void {
    for (const [d, w] of this.watchers) {
      if (d === dir || dir === "" || d.startsWith(`${dir}/`)) {
        w.close();
        this.watchers.delete(d);
        this.identities.delete(d);
      }
    }
  }

  /** True when `dir` is watched, and (given its status now) still the directory the watch is on. */
  watching(dir: string, now?: Stats): boolean {
    if (!this.watchers.has(dir)) return false;
    if (now === undefined) return true;
    // Without a birth time (a file system that keeps none) the inode alone cannot tell: walk it again.
    return now.birthtimeMs > 0 && this.identities.get(dir) === identity(now);
  }

  close(): void {
    this.remove("");
    this.stopped ??= "closed";
  }

  private changed(dir: string, name: string | Buffer | null): void {
    if (this.lost) return;
    if (typeof name !== "string" || name.includes("\uFFFD")) {
      this.lost = true; // no name, or one that is not UTF-8: the directory as a whole is in doubt
      return;
    }
    this.dirty.add(dir ? `${dir}/${name}` : name);
    if (this.dirty.size > MAX_CHANGES) this.invalidate();
  }

  private stop(reason: string): void {
    this.stopped = reason;
    this.remove("");
    this.lost = true;
  }
}

function identity(st: Stats): string {
  return `${st.ino}:${st.birthtimeMs}`;
}
