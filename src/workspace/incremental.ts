// A checkpoint's tree from the previous one and the paths the watcher saw change: each changed file is
// read and stored, each tree on its path rewritten, nothing else touched (no index, no scan). Anything
// this does not handle exactly as `git add -A` would — a .gitignore that changed, a new nested repository,
// more new files than is worth it — is answered with "full", and the caller scans the whole tree.

import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { type GitContext, runGit, splitNul } from "./git.js";
import { writeObject } from "./objects.js";
import { EMPTY_TREE, TREE_MODE, type TreeEntry, type TreeStore } from "./trees.js";
import { MAX_CHANGES, type TreeWatcher } from "./watch.js";

interface Increment {
  tree: string;
  /** Paths whose entry was added, changed or removed. */
  changed: number;
  /** Files over the size limit now (of those looked at), by path; undefined = no longer skipped. */
  skipped: Map<string, number | undefined>;
  warnings: string[];
}

interface Options {
  ctx: GitContext;
  trees: TreeStore;
  watcher: TreeWatcher;
  maxFileBytes: number;
}

/** A changed path as it is now. */
interface Seen {
  path: string;
  old: TreeEntry | undefined;
  /** undefined: gone (or not a file, link or directory: git skips sockets and pipes). */
  kind: "file" | "link" | "dir" | undefined;
  size: number;
  mode: number;
  /** A directory that is not the one watched under this name (deleted and made again, or moved in). */
  replaced?: boolean;
}

const GITLINK = "160000";

/** The new tree, or "full" when the whole tree must be scanned instead. */
export async function applyChanges(base: string, paths: string[], o: Options): Promise<Increment | "full"> {
  if (paths.some((p) => p.split("/").some((c) => c === ".gitignore" || c === ".git"))) return "full";
  const root = new Node(base);
  let seen: Seen[] = [];
  for (const path of new Set(paths)) {
    const s = await see(root, path, o);
    if (s === "full") return "full";
    if (s) seen.push(s);
  }
  // New paths follow the ignore rules (tracked ones stay, as in git); a new directory that is not
  // ignored is watched from now on and everything in it is new.
  let ignored = await ignoredAmong(
    o.ctx,
    seen.filter((s) => !s.old && s.kind).map((s) => s.path),
  );
  seen = seen.filter((s) => !ignored.has(s.path));
  const newDirs = seen.filter((s) => s.kind === "dir" && (s.old?.mode !== TREE_MODE || s.replaced));
  if (newDirs.length > 0) {
    const inside: Seen[] = [];
    for (const dir of newDirs) {
      o.watcher.remove(dir.path); // a replaced one's watches are on directories that are gone
      o.watcher.add(dir.path); // first: what is created after the walk below is reported
      const found = await walk(o.ctx.workTree, dir.path);
      if (found === "full" || seen.length + inside.length + found.files.length > MAX_CHANGES) return "full";
      for (const d of found.dirs) o.watcher.add(d);
      for (const f of found.files) {
        const s = await see(root, f, o);
        if (s === "full") return "full";
        if (s) inside.push(s);
      }
    }
    ignored = await ignoredAmong(
      o.ctx,
      inside.map((s) => s.path),
    );
    seen.push(...inside.filter((s) => !ignored.has(s.path)));
  }
  const skipped = new Map<string, number | undefined>();
  const warnings: string[] = [];
  let changed = 0;
  for (const s of seen) {
    let entry: TreeEntry | undefined;
    if (s.kind === "dir") {
      if (s.old?.mode === TREE_MODE && !s.replaced) continue; // its own watch reports inside
      entry = undefined; // what was here goes; what is inside now comes from the walk
    } else if (s.kind === undefined) {
      entry = undefined;
      skipped.set(s.path, undefined);
      if (o.watcher.watching(s.path)) o.watcher.remove(s.path);
    } else if (s.kind === "file" && s.size > o.maxFileBytes) {
      skipped.set(s.path, s.size); // left out, as a new file; taken out, when it was in
      entry = undefined;
    } else {
      skipped.set(s.path, undefined);
      const read = await readEntry(o.ctx, s);
      if (typeof read === "string") {
        warnings.push(read); // the previous content stays, as with `git add --ignore-errors`
        continue;
      }
      entry = read;
    }
    if (await root.set(s.path.split("/"), entry, o.trees)) changed++;
  }
  const tree = changed === 0 ? base : root.write(o.trees) || EMPTY_TREE;
  return { tree, changed, skipped, warnings };
}

/** What a changed path is now and was before; null when it does not matter; "full" when unsure. */
async function see(root: Node, path: string, o: Options): Promise<Seen | null | "full"> {
  const old = await lookup(root, path, o.trees);
  if (old === "in-repository") return null; // inside a nested repository: git records its commit only
  if (old?.mode === GITLINK) return "full"; // the nested repository itself changed
  const st = await lstat(join(o.ctx.workTree, path)).catch(() => undefined);
  const kind = !st
    ? undefined
    : st.isFile()
      ? "file"
      : st.isSymbolicLink()
        ? "link"
        : st.isDirectory()
          ? "dir"
          : undefined;
  if (!old && !kind) return null; // came and went
  const replaced = kind === "dir" && old?.mode === TREE_MODE && !o.watcher.watching(path, st);
  return { path, old, kind, size: st?.size ?? 0, mode: st?.mode ?? 0, replaced };
}

/** The file's tree entry (its content stored), or a warning when it cannot be read. */
async function readEntry(ctx: GitContext, s: Seen): Promise<TreeEntry | undefined | string> {
  const abs = join(ctx.workTree, s.path);
  try {
    const link = s.kind === "link";
    const body = link ? Buffer.from(await readlink(abs), "utf8") : await readFile(abs);
    const mode = link ? "120000" : s.mode & 0o100 ? "100755" : "100644";
    const name = s.path.slice(s.path.lastIndexOf("/") + 1);
    return { mode, name, oid: writeObject(ctx.gitDir, "blob", body) };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined; // deleted since
    return `error: open("${s.path}"): ${(e as Error).message}`;
  }
}

/** Every file and directory under a new directory; "full" when it holds a repository or too much. */
async function walk(root: string, dir: string): Promise<{ files: string[]; dirs: string[] } | "full"> {
  const files: string[] = [];
  const dirs: string[] = [];
  const queue = [dir];
  for (let next = 0; next < queue.length; next++) {
    const d = queue[next] as string;
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(join(root, d), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.name === ".git" || e.name === ".gitignore") return "full";
      const rel = `${d}/${e.name}`;
      if (e.isDirectory()) {
        dirs.push(rel);
        queue.push(rel);
      } else files.push(rel);
      if (files.length + dirs.length > MAX_CHANGES) return "full";
    }
  }
  return { files, dirs };
}

async function ignoredAmong(ctx: GitContext, paths: string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  // --no-index: the rules alone (the shadow index may be older than the last checkpoint).
  const out = await runGit(ctx, ["check-ignore", "-z", "--stdin", "--no-index"], {
    input: `${paths.join("\0")}\0`,
    okCodes: [1],
  });
  return new Set(splitNul(out.stdout));
}

/**
 * The entry at `path` in the tree being edited, undefined when there is none (also below what was a
 * file), "in-repository" below a nested repository's entry.
 */
async function lookup(
  root: Node,
  path: string,
  trees: TreeStore,
): Promise<TreeEntry | undefined | "in-repository"> {
  const parts = path.split("/");
  let node = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const e = (await node.load(trees)).get(parts[i] as string);
    if (!e) return undefined;
    if (e.mode === GITLINK) return "in-repository";
    if (e.mode !== TREE_MODE) return undefined;
    node = node.child(parts[i] as string, e.oid);
  }
  return (await node.load(trees)).get(parts.at(-1) as string);
}

/** A tree being edited: loaded on first need, written bottom-up when changed. */
class Node {
  private entries: Map<string, TreeEntry> | undefined;
  private readonly children = new Map<string, Node>();
  private dirty = false;

  constructor(private oid: string | undefined) {}

  async load(trees: TreeStore): Promise<Map<string, TreeEntry>> {
    if (!this.entries) {
      const list = this.oid ? await trees.read(this.oid) : [];
      this.entries = new Map(list.map((e) => [e.name, e]));
    }
    return this.entries;
  }

  child(name: string, oid: string | undefined): Node {
    let c = this.children.get(name);
    if (!c) {
      c = new Node(oid);
      this.children.set(name, c);
    }
    return c;
  }

  /** Puts `entry` at `parts` (removes what is there when undefined); true when that changed anything. */
  async set(parts: string[], entry: TreeEntry | undefined, trees: TreeStore): Promise<boolean> {
    const entries = await this.load(trees);
    const [name, ...rest] = parts as [string, ...string[]];
    const current = entries.get(name);
    if (rest.length === 0) {
      if (!entry) {
        if (!current) return false;
        entries.delete(name);
        this.children.delete(name);
      } else {
        if (current && current.mode === entry.mode && current.oid === entry.oid) return false;
        entries.set(name, entry);
        this.children.delete(name);
      }
      this.dirty = true;
      return true;
    }
    if (current && current.mode !== TREE_MODE) {
      if (!entry) return false; // nothing to remove below a file
      entries.delete(name); // a file where a directory now is
    }
    const sub = this.child(name, current?.mode === TREE_MODE ? current.oid : undefined);
    if (!entries.has(name)) entries.set(name, { mode: TREE_MODE, name, oid: "" });
    const changed = await sub.set(rest, entry, trees);
    if (changed || !current || current.mode !== TREE_MODE) this.dirty = true;
    return changed;
  }

  /** Writes the changed trees below and this one; returns this tree's id ("" when it ends up empty). */
  write(trees: TreeStore): string {
    if (!this.dirty || !this.entries) return this.oid ?? "";
    for (const [name, c] of this.children) {
      const oid = c.write(trees);
      if (oid === "") this.entries.delete(name);
      else this.entries.set(name, { mode: TREE_MODE, name, oid });
    }
    for (const [name, e] of this.entries) if (e.mode === TREE_MODE && e.oid === "") this.entries.delete(name);
    this.oid = this.entries.size === 0 ? "" : trees.write([...this.entries.values()]);
    this.dirty = false;
    return this.oid;
  }
}
