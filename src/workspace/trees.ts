// Git tree objects read and written without an index: a checkpoint after a turn that changed three files
// rewrites the trees on their paths (a few objects), never the 100 000 entries of an index.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { GitContext } from "./git.js";
import { CheckpointError } from "./git.js";
import { readLoose, writeObject } from "./objects.js";

export interface TreeEntry {
  /** "100644", "100755", "120000", "40000" (a tree) or "160000" (a nested repository's commit). */
  mode: string;
  name: string;
  /** 40 hex digits. */
  oid: string;
}

export const TREE_MODE = "40000";
/** Git knows this tree without it being stored. */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
/** Entries kept in memory across snapshots (about 150 bytes each): the trees changes keep touching. */
const CACHE_ENTRIES = 50_000;

function decodeTree(body: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const nul = body.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > body.length) throw new CheckpointError("a tree object is damaged");
    entries.push({
      mode: body.toString("latin1", at, space),
      name: body.toString("utf8", space + 1, nul),
      oid: body.toString("hex", nul + 1, nul + 21),
    });
    at = nul + 21;
  }
  return entries;
}

function encodeTree(entries: TreeEntry[]): Buffer {
  // Git's order: by name bytes, a tree's name compared as if it ended in "/". For ASCII names string
  // order is byte order (the common case, and no buffer per entry); otherwise bytes are compared.
  const keyed = entries.map((e) => ({ e, key: e.mode === TREE_MODE ? `${e.name}/` : e.name }));
  if (keyed.every((k) => ascii(k.key))) keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  else keyed.sort((a, b) => Buffer.compare(Buffer.from(a.key, "utf8"), Buffer.from(b.key, "utf8")));
  let size = 0;
  for (const { e } of keyed) size += e.mode.length + Buffer.byteLength(e.name, "utf8") + 22;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const { e } of keyed) {
    at += out.write(`${e.mode} ${e.name}`, at, "utf8");
    out[at++] = 0;
    at += out.write(e.oid, at, "hex");
  }
  return out;
}

/** True when every character is ASCII (then UTF-8 has one byte per character). */
function ascii(s: string): boolean {
  return Buffer.byteLength(s, "utf8") === s.length;
}

/**
 * Trees by id: from a small cache (the trees this process wrote or read lately), else from one
 * `git cat-file --batch` started on first need and ended by close().
 */
export class TreeStore {
  private readonly cache = new Map<string, TreeEntry[]>();
  private cached = 0;
  private dirs: string[] | undefined;
  private reader: BatchReader | undefined;

  constructor(private readonly ctx: GitContext) {}

  async read(oid: string): Promise<TreeEntry[]> {
    const hit = this.cache.get(oid);
    if (hit) {
      this.cache.delete(oid); // most recently used last
      this.cache.set(oid, hit);
      return hit;
    }
    // Loose (what write-tree and this process wrote) is read here; packed, by git.
    const loose = this.objectDirs().reduce<{ type: string; body: Buffer } | undefined>(
      (found, dir) => found ?? readLoose(dir, oid),
      undefined,
    );
    if (!loose) this.reader ??= new BatchReader(this.ctx);
    const { type, body } = loose ?? (await (this.reader as BatchReader).get(oid));
    if (type !== "tree") throw new CheckpointError(`object ${oid} is a ${type}, not a tree`);
    const entries = decodeTree(body);
    this.remember(oid, entries);
    return entries;
  }

  write(entries: TreeEntry[]): string {
    const oid = writeObject(this.ctx.gitDir, "tree", encodeTree(entries));
    this.remember(oid, entries);
    return oid;
  }

  /** This repository's object directory and its alternates (the user's, when seeded). */
  private objectDirs(): string[] {
    if (this.dirs) return this.dirs;
    const own = join(this.ctx.gitDir, "objects");
    try {
      const alternates = readFileSync(join(own, "info", "alternates"), "utf8")
        .split("\n")
        .filter(Boolean);
      this.dirs = [own, ...alternates];
    } catch {
      this.dirs = [own];
    }
    return this.dirs;
  }

  /** Ends the reader process (the cache stays) and forgets the object directories until next time. */
  close(): void {
    this.dirs = undefined;
    this.reader?.close();
    this.reader = undefined;
  }

  private remember(oid: string, entries: TreeEntry[]): void {
    if (this.cache.has(oid)) return;
    this.cache.set(oid, entries);
    this.cached += entries.length;
    for (const [old, list] of this.cache) {
      if (this.cached <= CACHE_ENTRIES || old === oid) break;
      this.cache.delete(old);
      this.cached -= list.length;
    }
  }
}

/** `git cat-file --batch`: one object per request, in order. */
class BatchReader {
  private readonly child;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly waiting: {
    resolve: (o: { type: string; body: Buffer }) => void;
    reject: (e: Error) => void;
  }[] = [];
  private failed: Error | undefined;

  constructor(ctx: GitContext) {
    this.child = spawn(ctx.git, ["cat-file", "--batch"], {
      cwd: ctx.workTree,
      env: ctx.env,
      stdio: ["pipe", "pipe", "ignore"],
    });
    this.child.stdout.on("data", (d: Buffer) => {
      this.buffer = this.buffer.length === 0 ? d : Buffer.concat([this.buffer, d]);
      this.drain();
    });
    this.child.stdin.on("error", () => {});
    const fail = (e: Error) => {
      this.failed = e;
      for (const w of this.waiting.splice(0)) w.reject(e);
    };
    this.child.on("error", fail);
    this.child.on("close", () => fail(new CheckpointError("git cat-file ended")));
  }

  get(oid: string): Promise<{ type: string; body: Buffer }> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${oid}\n`);
    });
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }

  private drain(): void {
    for (;;) {
      const nl = this.buffer.indexOf(0x0a);
      if (nl < 0) return;
      const header = this.buffer.toString("latin1", 0, nl).split(" ");
      const next = this.waiting[0];
      if (header[1] === "missing" || header.length !== 3) {
        this.buffer = this.buffer.subarray(nl + 1);
        this.waiting.shift();
        next?.reject(new CheckpointError(`object ${header[0]} is missing from the checkpoint repository`));
        continue;
      }
      const size = Number(header[2]);
      if (this.buffer.length < nl + 1 + size + 1) return;
      const body = Buffer.from(this.buffer.subarray(nl + 1, nl + 1 + size));
      this.buffer = this.buffer.subarray(nl + 1 + size + 1);
      this.waiting.shift();
      next?.resolve({ type: header[1] as string, body });
    }
  }
}
