// Commits and refs written directly in git's on-disk format. Each git process costs 10–20 ms to start,
// and a checkpoint of an unchanged tree needs only a commit object and a ref: doing those two here keeps
// a snapshot to three git calls (ls-files, add, write-tree). The formats are git's stable loose-object
// and loose-ref formats; the shadow repository is always SHA-1 (created by us with no user config).

import { createHash, randomBytes } from "node:crypto";
import { existsSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { deflateSync, inflateSync } from "node:zlib";
import { makeDirs } from "../config/dirs.js";

const IDENT = "relm <relm@localhost>";

/** Writes a commit object and returns its id. */
export function writeCommit(
  gitDir: string,
  tree: string,
  parents: string[],
  message: string,
  when: Date,
): string {
  const seconds = Math.floor(when.getTime() / 1000);
  const lines = [`tree ${tree}`, ...parents.map((p) => `parent ${p}`)];
  lines.push(`author ${IDENT} ${seconds} +0000`, `committer ${IDENT} ${seconds} +0000`);
  return writeObject(gitDir, "commit", Buffer.from(`${lines.join("\n")}\n\n${message}`, "utf8"));
}

/** The id an object would have (SHA-1 of its header and body). */
function objectId(type: "blob" | "tree" | "commit", body: Buffer): string {
  return createHash("sha1").update(`${type} ${body.length}\0`).update(body).digest("hex");
}

/**
 * Writes a loose object and returns its id; one that is already there (loose) is not written again.
 * An object only in a pack (or an alternate) is written loose once more: harmless, repacking drops it.
 */
export function writeObject(gitDir: string, type: "blob" | "tree" | "commit", body: Buffer): string {
  const id = objectId(type, body);
  const path = join(gitDir, "objects", id.slice(0, 2), id.slice(2));
  if (!existsSync(path)) {
    const tmp = join(dirname(path), `tmp_relm_${randomBytes(6).toString("hex")}`);
    const data = deflateSync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]), { level: 1 });
    writeMakingDir(tmp, data, 0o444);
    try {
      linkSync(tmp, path); // like git: never replace an object that is already there
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  return id;
}

/** The commit a ref points to, from its loose file or packed-refs; undefined when it does not exist. */
export function readRef(gitDir: string, ref: string): string | undefined {
  try {
    const id = readFileSync(join(gitDir, ref), "utf8").trim();
    if (/^[0-9a-f]{40}$/.test(id)) return id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  try {
    for (const line of readFileSync(join(gitDir, "packed-refs"), "utf8").split("\n")) {
      const [id, name] = line.split(" ");
      if (name === ref && id && /^[0-9a-f]{40}$/.test(id)) return id;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  return undefined;
}

/** Points a ref at a commit, atomically (write aside, then rename over). */
export function writeRef(gitDir: string, ref: string, id: string): void {
  const path = join(gitDir, ref);
  const tmp = `${path}.lock`;
  writeMakingDir(tmp, `${id}\n`);
  renameSync(tmp, path);
}

/**
 * Writes `file`, making its directory only when the write says it is missing: a snapshot of an unchanged
 * tree writes a commit and a ref into directories that are nearly always there, and a mkdir that fails
 * with EEXIST (an exception, then a stat) cost ~2 ms a turn on a loaded machine (issue 24). Packing
 * (maintenance.ts) removes object directories it emptied: made again, as git does.
 */
function writeMakingDir(file: string, data: Buffer | string, mode?: number): void {
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, data, mode === undefined ? undefined : { mode });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || attempt >= 3) throw err;
    }
    makeDirs(dirname(file));
  }
}

/** A loose object's type and body; undefined when it is not stored loose (or cannot be read). */
export function readLoose(objects: string, oid: string): { type: string; body: Buffer } | undefined {
  let data: Buffer;
  try {
    data = inflateSync(readFileSync(join(objects, oid.slice(0, 2), oid.slice(2))));
  } catch {
    return undefined;
  }
  const nul = data.indexOf(0);
  const [type, size] = data.toString("latin1", 0, nul).split(" ");
  if (nul < 0 || !type || Number(size) !== data.length - nul - 1) return undefined;
  return { type, body: data.subarray(nul + 1) };
}

/** The tree of a loose commit object; undefined when the object is packed (then ask git). */
export function readLooseCommitTree(gitDir: string, id: string): string | undefined {
  const object = readLoose(join(gitDir, "objects"), id);
  if (object?.type !== "commit") return undefined;
  return /^tree ([0-9a-f]{40})\n/.exec(object.body.toString("latin1", 0, 46))?.[1];
}
