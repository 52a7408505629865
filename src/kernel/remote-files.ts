// Files a remote kernel (launcher transport "remote": ssh, cmd:, containers, Slurm) cannot share with
// this machine, moved over the protocol instead (python/relm/transfer.py on the other side):
// - in: --var files and handed-over pickles are written under the kernel's scratch directory first;
//   a resumed snapshot is written there before it is restored;
// - out: a truncated cell's full output, pickles in the kernel's requests (rlm.spawn/map variables,
//   submit) and every snapshot file are fetched into this machine's session directory.
// Content crosses in 4 MB pieces, at most 3 of a file on their way at once, so memory stays bounded
// and a cell's own traffic is never held up for long. Everything here is a no-op for local kernels (of() is undefined).
import { randomUUID } from "node:crypto";
import { open, readdir, readFile, rename, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { makeDirs } from "../config/dirs.js";
import { KernelRequestError } from "./errors.js";
import type { HostMessage } from "./protocol.js";
import type { RunnerProcess } from "./runner-process.js";
import { writeNoFollow } from "./sandbox/no-follow.js";
import { isSnapshotFile, type RunnerSnapshot } from "./snapshot-secrets.js";
import type { VariableSource } from "./types.js";

const CHUNK = 4 << 20;
/** Pieces of one file on their way at once. */
const WINDOW = 3;
const MANIFEST = "manifest.json";

export class RemoteFiles {
  private constructor(
    private readonly runner: RunnerProcess,
    /** The kernel's scratch directory over there (POSIX paths). */
    readonly scratch: string,
    /** Where fetched files without a place of their own go here (the session's outputs). */
    private readonly localDir: string,
  ) {}

  /** The file mover of `runner`, or undefined when it shares this machine's disk. */
  static of(runner: RunnerProcess, localDir: string | undefined): RemoteFiles | undefined {
    const scratch = runner.ready?.scratch;
    if (!runner.remote || !scratch) return undefined;
    let files = movers.get(runner);
    if (!files) {
      files = new RemoteFiles(
        runner,
        scratch,
        localDir ?? path.join(os.tmpdir(), `relm-remote-${process.pid}`),
      );
      movers.set(runner, files);
    }
    return files;
  }

  /** Where the kernel keeps its snapshot over there. */
  get snapshotDir(): string {
    return path.posix.join(this.scratch, "snapshot");
  }

  /** A set_var message for `source`, its file (if any) written over there first. */
  async setVarMessage(name: string, source: VariableSource, cwd: string): Promise<SetVar> {
    if ("text" in source) return { type: "set_var", name, text: source.text };
    const local = "pickle" in source ? source.pickle : path.resolve(cwd, source.file);
    const there = await this.push(local, path.posix.join(this.scratch, "in", `${randomUUID()}.bin`));
    return "pickle" in source
      ? { type: "set_var", name, pickle: there }
      : { type: "set_var", name, file: there };
  }

  /** After set_var: its copy over there is not needed any more. */
  dropped(msg: SetVar): void {
    const there = "pickle" in msg ? msg.pickle : "file" in msg ? msg.file : undefined;
    if (there) this.remove(there);
  }

  /** A truncated cell's full output, fetched into `outputDir` (its path here), or undefined. */
  async fullOutput(there: string, outputDir: string | undefined): Promise<string | undefined> {
    const local = path.join(outputDir ?? this.localDir, path.posix.basename(there));
    try {
      await this.pull(there, local);
      return local;
    } catch {
      return undefined; // the note still says the output was truncated; only the file is missing
    }
  }

  /**
   * Brings a finished snapshot round home: fetches the files `dir` does not hold yet (their names carry
   * their digest, so a file already here is the same), writes the manifest and removes files it no
   * longer lists. Then settleSnapshot() checks it for secrets as for a local kernel.
   */
  async pullSnapshot(dir: string, round: RunnerSnapshot): Promise<void> {
    if (round.superseded) return;
    makeDirs(dir, 0o700);
    const keep = new Set(Object.values(round.files ?? {}));
    const have = new Set(await readdir(dir).catch(() => [] as string[]));
    for (const file of keep) {
      if (!have.has(file)) await this.pull(path.posix.join(this.snapshotDir, file), path.join(dir, file));
    }
    // The snapshot folder is writable by the session's (sandboxed) kernels: no link of theirs is followed.
    writeNoFollow(path.join(dir, MANIFEST), JSON.stringify(round));
    for (const file of have) {
      if (file.endsWith(".pkl") && !keep.has(file)) await rm(path.join(dir, file), { force: true });
    }
  }

  /** The manifest as settled here (secrets found and dropped), so the kernel does not list them again. */
  async pushManifest(dir: string): Promise<void> {
    await this.push(path.join(dir, MANIFEST), path.posix.join(this.snapshotDir, MANIFEST));
  }

  /** Writes the snapshot in `dir` over there and returns where (for restore). */
  async pushSnapshot(dir: string): Promise<string> {
    const manifest = await readFile(path.join(dir, MANIFEST), "utf8").catch(() => undefined);
    if (manifest === undefined) return this.snapshotDir; // nothing to restore: an empty directory there
    let files: string[] = [];
    try {
      // The manifest was written by a kernel: only files of this folder are sent over.
      files = Object.values((JSON.parse(manifest) as RunnerSnapshot).files ?? {}).filter(isSnapshotFile);
    } catch {
      // a damaged manifest: restore reports it as it would here
    }
    for (const file of files) {
      await this.push(path.join(dir, file), path.posix.join(this.snapshotDir, file)).catch(() => {});
    }
    await this.push(path.join(dir, MANIFEST), path.posix.join(this.snapshotDir, MANIFEST));
    return this.snapshotDir;
  }

  /** A request from the kernel with pickles (rlm variables, submit) fetched here, their paths replaced. */
  async inbound(params: unknown): Promise<unknown> {
    return mapDeep(params, async (obj) => {
      if (typeof obj.pickle !== "string") return obj;
      const local = path.join(this.localDir, `${randomUUID()}-${path.posix.basename(obj.pickle)}`);
      await this.pull(obj.pickle, local);
      this.remove(obj.pickle);
      return { ...obj, pickle: local };
    });
  }

  /** An answer for the kernel with the pickles it names (a child's result) written over there. */
  async outbound(result: unknown): Promise<unknown> {
    return mapDeep(result, async (obj) => {
      if (obj.kind !== "pickle" || typeof obj.path !== "string") return obj;
      const there = path.posix.join(this.scratch, "in", `${randomUUID()}.pkl`);
      return { ...obj, path: await this.push(obj.path, there) };
    });
  }

  /**
   * Copies local file `local` to `there`; resolves with `there`. Pieces go out back to back, at most
   * WINDOW unanswered (the runner writes them in order on one thread), so a round trip per piece is
   * not waited for while memory stays bounded.
   */
  async push(local: string, there: string): Promise<string> {
    const handle = await open(local, "r");
    const inFlight: Promise<unknown>[] = [];
    try {
      const size = (await handle.stat()).size;
      let offset = 0;
      do {
        const buf = Buffer.alloc(Math.min(CHUNK, Math.max(size - offset, 1)));
        const { bytesRead } = await handle.read(buf, 0, buf.length, offset);
        const data = buf.subarray(0, bytesRead).toString("base64");
        const sent = this.ask({ type: "file_write", path: there, data, append: offset > 0 });
        sent.catch(() => {}); // awaited below; a failure meanwhile must not be "unhandled"
        inFlight.push(sent);
        if (inFlight.length >= WINDOW) await inFlight.shift();
        offset += bytesRead;
        if (bytesRead === 0) break;
      } while (offset < size);
      await Promise.all(inFlight);
    } finally {
      await Promise.allSettled(inFlight);
      await handle.close();
    }
    return there;
  }

  /** Copies `there` to local file `local` (0600, written whole or not at all); pieces asked WINDOW at a time. */
  async pull(there: string, local: string): Promise<void> {
    makeDirs(path.dirname(local), 0o700);
    const tmp = `${local}.${process.pid}.part`;
    const handle = await open(tmp, "w", 0o600);
    const piece = async (offset: number) => {
      const reply = await this.ask({ type: "file_read", path: there, offset, length: CHUNK });
      const data = Buffer.from(reply.data ?? "", "base64");
      if (data.length > 0) await handle.write(data, 0, data.length, offset);
      return reply.size ?? 0;
    };
    try {
      const size = await piece(0);
      const offsets: number[] = [];
      for (let at = CHUNK; at < size; at += CHUNK) offsets.push(at);
      for (let i = 0; i < offsets.length; i += WINDOW) {
        await Promise.all(offsets.slice(i, i + WINDOW).map(piece));
      }
    } catch (e) {
      await handle.close();
      await rm(tmp, { force: true });
      throw e;
    }
    await handle.close();
    await rename(tmp, local);
  }

  /** Removes `there`, not waiting for it. */
  remove(there: string): void {
    this.ask({ type: "file_remove", path: there }).catch(() => {});
  }

  private async ask(msg: FileRequest): Promise<{ data?: string; size?: number }> {
    const reply = await this.runner.request(msg);
    if (reply.type !== "file") throw new KernelRequestError(`unexpected reply to ${msg.type}`);
    if (reply.error)
      throw new KernelRequestError(`moving a file to or from the kernel failed: ${reply.error}`);
    return reply;
  }
}

type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;
type SetVar = WithoutId<Extract<HostMessage, { type: "set_var" }>>;
type FileRequest = WithoutId<Extract<HostMessage, { type: "file_write" | "file_read" | "file_remove" }>>;

const movers = new WeakMap<RunnerProcess, RemoteFiles>();

/** `value` with every plain object in it passed through `fn` (depth first, parents after children). */
async function mapDeep(
  value: unknown,
  fn: (obj: Record<string, unknown>) => Promise<Record<string, unknown>>,
): Promise<unknown> {
  if (Array.isArray(value)) return Promise.all(value.map((v) => mapDeep(v, fn)));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = await mapDeep(v, fn);
  return fn(out);
}
