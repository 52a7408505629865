// Commits and refs written directly in git's on-disk format. Each git process costs 10–20 ms to start,
// and a checkpoint of an unchanged tree needs only a commit object and a ref: doing those two here keeps
// a snapshot to three git calls (ls-files, add, write-tree). The formats are git's stable loose-object
// and loose-ref formats; the shadow repository is always SHA-1 (created by us with no user config).

import { createHash, randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { deflateSync, inflateSync } from "node:zlib";

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
  const body = Buffer.from(`${lines.join("\n")}\n\n${message}`, "utf8");
  const data = Buffer.concat([Buffer.from(`commit ${body.length}\0`), body]);
  const id = createHash("sha1").update(data).digest("hex");
  const path = join(gitDir, "objects", id.slice(0, 2), id.slice(2));
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    const tmp = join(dirname(path), `tmp_relm_${randomBytes(6).toString("hex")}`);
    writeFileSync(tmp, deflateSync(data), { mode: 0o444 });
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
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.lock`;
  writeFileSync(tmp, `${id}\n`);
  renameSync(tmp, path);
}

/** The tree of a loose commit object; undefined when the object is packed (then ask git). */
export function readLooseCommitTree(gitDir: string, id: string): string | undefined {
  try {
    const data = inflateSync(readFileSync(join(gitDir, "objects", id.slice(0, 2), id.slice(2))));
    const m = /^commit \d+\0tree ([0-9a-f]{40})\n/.exec(data.subarray(0, 120).toString("latin1"));
    return m?.[1];
  } catch {
    return undefined;
  }
}
