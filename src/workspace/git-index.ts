// Git's index file, read and written directly (format: gitformat-index(5)). Used to start a shadow
// repository from what the user's own git already knows: every file their index lists, with the stat data
// that proves it unchanged, so the first checkpoint of a 100 000-file repository hashes only what differs
// instead of reading and storing every file again. Only what is safe to carry over is read; anything
// unusual (a split or sparse index, SHA-256, an unknown version) makes the reader give up, and the
// shadow repository is then filled the slow way.

import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";

interface IndexEntry {
  ctimeSec: number;
  ctimeNsec: number;
  mtimeSec: number;
  mtimeNsec: number;
  dev: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  /** 20 bytes (SHA-1). */
  oid: Buffer;
  path: string;
}

const SIGNATURE = 0x44495243; // "DIRC"
const ENTRY_FIXED = 62; // 10 32-bit stat fields, a 20-byte oid and 16-bit flags
const EXTENDED = 0x4000;
const STAGE_MASK = 0x3000;
const INTENT_TO_ADD = 0x2000; // in the extended flags
const GITLINK = 0o160000;

/**
 * Stage-0 entries of an index file, in index order (sorted by path). Throws on anything it does not
 * understand; entries for files added with `git add -N` (no content yet) and conflicts are left out.
 */
function readIndex(path: string): IndexEntry[] {
  const buf = readFileSync(path);
  if (buf.length < 12 + 20 || buf.readUInt32BE(0) !== SIGNATURE) throw new Error("not a git index");
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) throw new Error(`index version ${version}`);
  const count = buf.readUInt32BE(8);
  const end = buf.length - 20;
  const entries: IndexEntry[] = [];
  let at = 12;
  let previous = "";
  for (let i = 0; i < count; i++) {
    if (at + ENTRY_FIXED > end) throw new Error("truncated index");
    const flags = buf.readUInt16BE(at + 60);
    let extended = 0;
    let nameAt = at + ENTRY_FIXED;
    if (flags & EXTENDED) {
      if (version < 3) throw new Error("extended flags in a version 2 index");
      extended = buf.readUInt16BE(nameAt);
      nameAt += 2;
    }
    let path: string;
    let next: number;
    if (version === 4) {
      // Path compressed against the previous one: a varint of bytes to drop, then the rest.
      let strip = 0;
      let p = nameAt;
      let byte = buf[p++] as number;
      strip = byte & 0x7f;
      while (byte & 0x80) {
        byte = buf[p++] as number;
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const stop = buf.indexOf(0, p);
      if (stop < 0 || stop > end) throw new Error("truncated index");
      const prefix = Buffer.from(previous, "utf8");
      if (strip > prefix.length) throw new Error("bad path compression");
      path = Buffer.concat([prefix.subarray(0, prefix.length - strip), buf.subarray(p, stop)]).toString(
        "utf8",
      );
      next = stop + 1;
    } else {
      const stop = buf.indexOf(0, nameAt);
      if (stop < 0 || stop > end) throw new Error("truncated index");
      path = buf.toString("utf8", nameAt, stop);
      const length = stop - at; // up to the NUL; entries are padded with 1-8 NULs to a multiple of 8
      next = at + ((length + 8) & ~7);
    }
    previous = path;
    const entry: IndexEntry = {
      ctimeSec: buf.readUInt32BE(at),
      ctimeNsec: buf.readUInt32BE(at + 4),
      mtimeSec: buf.readUInt32BE(at + 8),
      mtimeNsec: buf.readUInt32BE(at + 12),
      dev: buf.readUInt32BE(at + 16),
      ino: buf.readUInt32BE(at + 20),
      mode: buf.readUInt32BE(at + 24),
      uid: buf.readUInt32BE(at + 28),
      gid: buf.readUInt32BE(at + 32),
      size: buf.readUInt32BE(at + 36),
      oid: buf.subarray(at + 40, at + 60),
      path,
    };
    at = next;
    if ((flags & STAGE_MASK) !== 0 || extended & INTENT_TO_ADD) continue;
    entries.push(entry);
  }
  // Extensions: a split index keeps its entries elsewhere, a sparse one collapses directories.
  while (at + 8 <= end) {
    const signature = buf.toString("latin1", at, at + 4);
    if (signature === "link" || signature === "sdir") throw new Error(`index extension ${signature}`);
    at += 8 + buf.readUInt32BE(at + 4);
  }
  return entries;
}

/** Writes a version 2 index holding `entries` and no extensions; they are sorted by path bytes first. */
export function encodeIndex(entries: IndexEntry[]): Buffer {
  // Usually in order already (read from an index): checked pairwise, sorted only when needed.
  const inOrder = entries.every(
    (e, i) => i === 0 || comparePaths((entries[i - 1] as IndexEntry).path, e.path) < 0,
  );
  const sorted = inOrder ? entries : [...entries].sort((a, b) => comparePaths(a.path, b.path));
  let size = 12 + 20;
  for (const e of sorted) size += (ENTRY_FIXED + Buffer.byteLength(e.path, "utf8") + 8) & ~7;
  const out = Buffer.alloc(size); // zeroed: the padding after each name is NULs
  out.writeUInt32BE(SIGNATURE, 0);
  out.writeUInt32BE(2, 4);
  out.writeUInt32BE(sorted.length, 8);
  let at = 12;
  for (const e of sorted) {
    const fields = [
      e.ctimeSec,
      e.ctimeNsec,
      e.mtimeSec,
      e.mtimeNsec,
      e.dev,
      e.ino,
      e.mode,
      e.uid,
      e.gid,
      e.size,
    ];
    for (const [i, v] of fields.entries()) out.writeUInt32BE(v >>> 0, at + i * 4);
    e.oid.copy(out, at + 40);
    const nameLength = out.write(e.path, at + ENTRY_FIXED, "utf8");
    out.writeUInt16BE(Math.min(nameLength, 0xfff), at + 60);
    at += (ENTRY_FIXED + nameLength + 8) & ~7;
  }
  createHash("sha1").update(out.subarray(0, at)).digest().copy(out, at);
  return out;
}

/** True when every character is ASCII (then UTF-8 has one byte per character). */
function ascii(s: string): boolean {
  return Buffer.byteLength(s, "utf8") === s.length;
}

/** Git's index order: by the bytes of the path (string order is the same for ASCII paths). */
function comparePaths(a: string, b: string): number {
  if (ascii(a) && ascii(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/**
 * The entries of the user's index that a shadow index may start from: under `prefix` (the working
 * directory inside the repository; "" at its root), renamed relative to it, regular files, symlinks and
 * gitlinks only, at most `maxBytes` each, `keep(path)` true. An entry that could be "racily clean" (its
 * file changed in the same instant the index was written) gets size 0, so git looks at the file again.
 */
export function carriedEntries(
  indexPath: string,
  prefix: string,
  maxBytes: number,
  keep: (path: string) => boolean,
): IndexEntry[] {
  const written = statSync(indexPath, { bigint: true });
  const writtenSec = Number(written.mtimeNs / 1_000_000_000n);
  const writtenNsec = Number(written.mtimeNs % 1_000_000_000n);
  const out: IndexEntry[] = [];
  for (const e of readIndex(indexPath)) {
    if (prefix && !e.path.startsWith(prefix)) continue;
    const path = e.path.slice(prefix.length);
    const kind = e.mode & 0o170000;
    if (kind !== 0o100000 && kind !== 0o120000 && kind !== GITLINK) continue;
    if (kind !== GITLINK && e.size > maxBytes) continue;
    if (!keep(path)) continue;
    const racy = e.mtimeSec > writtenSec || (e.mtimeSec === writtenSec && e.mtimeNsec >= writtenNsec);
    out.push({ ...e, path, size: racy ? 0 : e.size });
  }
  return out;
}
