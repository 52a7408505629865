// The host's half of a variable snapshot (python/relm/snapshot.py writes the files): no file may keep a
// secret the journal would redact. The kernel is never told the secrets, not even as salted hashes: a
// hash of a short password can be guessed back by whoever holds it, and a cell can read anything its
// kernel knows. So the host, which holds the values, reads every file it has not checked before (the
// manifest's `unverified`) for them, deletes a file holding one, lists its variable as skipped (the
// model is told, as of any variable not saved), and keeps the file's digest under `secret`, so that the
// kernel does not write the unchanged value again. Unchanged files are not read twice.

import { constants } from "node:fs";
import { open, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeNoFollow } from "./sandbox/no-follow.js";
import type { SnapshotReport } from "./types.js";

const SECRET_REASON = "holds a secret value (an API key or token): not saved";
const MANIFEST = "manifest.json";
const CHUNK = 1 << 20;
/** Shorter values would match ordinary bytes; the journal's redaction uses the same floor. */
const MIN_SECRET_LENGTH = 8;

/** The manifest as the runner writes it (python/relm/snapshot.py), or a round that gave way. */
export interface RunnerSnapshot {
  superseded?: boolean;
  saved?: string[];
  skipped?: { name: string; reason: string }[];
  bytes?: number;
  files?: Record<string, string>;
  digests?: Record<string, string>;
  unverified?: string[];
  secret?: Record<string, string>;
}

/**
 * A file a manifest may name: one file of the snapshot folder (python/relm/snapshot.py writes
 * NAME.DIGEST.pkl). The kernel writes the manifest, and a sandboxed one must not get the host to read,
 * delete (a file holding a secret is deleted below) or, for a remote kernel, write a file elsewhere.
 */
export function isSnapshotFile(name: unknown): name is string {
  return typeof name === "string" && name.endsWith(".pkl") && !/[/\\\0]/.test(name);
}

const NOT_A_FILE = "not saved: the kernel named a file outside the snapshot folder";

/** `round` without the variables whose file is not one of the folder's (they count as not saved). */
export function checkedRound(round: RunnerSnapshot): RunnerSnapshot {
  const files = round.files ?? {};
  const bad = new Set(Object.keys(files).filter((name) => !isSnapshotFile(files[name])));
  if (bad.size === 0) return round;
  const keep = <T>(o: Record<string, T> | undefined) =>
    o && Object.fromEntries(Object.entries(o).filter(([name]) => !bad.has(name)));
  return {
    ...round,
    saved: (round.saved ?? []).filter((name) => !bad.has(name)),
    skipped: [...(round.skipped ?? []), ...[...bad].map((name) => ({ name, reason: NOT_A_FILE }))],
    files: keep(files),
    digests: keep(round.digests),
    unverified: (round.unverified ?? []).filter((name) => !bad.has(name)),
  };
}

/**
 * Checks the files of a finished round for `secrets` and writes the manifest back without those that
 * hold one; returns what the snapshot holds. A round that gave way changed nothing on disk.
 */
export async function settleSnapshot(
  dir: string,
  round: RunnerSnapshot,
  secrets: readonly string[],
): Promise<SnapshotReport> {
  if (round.superseded) return { saved: [], skipped: [], bytes: 0, superseded: true };
  const saved = [...(round.saved ?? [])];
  const skipped = [...(round.skipped ?? [])];
  let bytes = round.bytes ?? 0;
  const needles = needlesOf(secrets);
  const unverified = round.unverified ?? [];
  if (needles.length === 0 || unverified.length === 0) return { saved, skipped, bytes };
  const files = { ...(round.files ?? {}) };
  const digests = { ...(round.digests ?? {}) };
  const secret = { ...(round.secret ?? {}) };
  for (const name of unverified) {
    const file = files[name];
    if (file === undefined || !saved.includes(name)) continue;
    const path = join(dir, file);
    const found = await holdsAny(path, needles);
    if (found === false) continue;
    // Unreadable (gone, or not ours) counts as holding one: a file nobody checked is not kept.
    await rm(path, { force: true });
    saved.splice(saved.indexOf(name), 1);
    skipped.push({ name, reason: SECRET_REASON });
    if (digests[name] !== undefined) secret[name] = digests[name];
    delete files[name];
    delete digests[name];
    bytes -= found;
  }
  const manifest = { ...round, saved, skipped, bytes, files, digests, unverified: [], secret };
  delete manifest.superseded;
  // The folder is the kernel's to write too: a link it put at the name must not be written through.
  writeNoFollow(join(dir, MANIFEST), JSON.stringify(manifest));
  return { saved, skipped, bytes };
}

/** The byte forms a secret takes in a pickle: UTF-8 (str, bytes) and UTF-32 (numpy's str arrays). */
function needlesOf(secrets: readonly string[]): Buffer[] {
  const out: Buffer[] = [];
  for (const s of new Set(secrets)) {
    if (typeof s !== "string" || s.length < MIN_SECRET_LENGTH) continue;
    out.push(Buffer.from(s, "utf8"), utf32le(s));
  }
  return out;
}

function utf32le(text: string): Buffer {
  const points = [...text].map((c) => c.codePointAt(0) ?? 0);
  const buf = Buffer.alloc(points.length * 4);
  for (const [i, p] of points.entries()) buf.writeUInt32LE(p, i * 4);
  return buf;
}

/**
 * False when the file holds none of `needles`; else the file's size (0 when it cannot be read).
 * Read in 1 MB pieces that overlap by the longest needle, so the host's event loop is never held long.
 */
async function holdsAny(path: string, needles: Buffer[]): Promise<false | number> {
  const overlap = Math.max(...needles.map((n) => n.length)) - 1;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // Without waiting: the folder is the kernel's to write, and open() of a FIFO there waits for a
    // writer for ever (the round never settled, nor any after it). Not a regular file: unchecked.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return 0;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return 0;
    const size = stat.size;
    const buf = Buffer.alloc(CHUNK + overlap);
    let kept = 0;
    let position = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, kept, CHUNK, position);
      const end = kept + bytesRead;
      const view = buf.subarray(0, end);
      if (needles.some((n) => view.indexOf(n) >= 0)) return size;
      if (bytesRead === 0) return false;
      position += bytesRead;
      kept = Math.min(overlap, end);
      buf.copy(buf, 0, end - kept, end);
    }
  } catch {
    return 0;
  } finally {
    await handle.close();
  }
}
