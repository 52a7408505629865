import {
  close,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fsync,
  ftruncateSync,
  openSync,
  rmdirSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, join, relative, sep } from "node:path";
import { writeNoFollow } from "../kernel/sandbox/no-follow.js";
import { ensurePrivateDir } from "./paths.js";
import { readHeaderAndTail } from "./read.js";
import { Redactor } from "./redact.js";
import { JOURNAL_VERSION, type JournalBody, type JournalEvent, type JournalHeader } from "./types.js";
import { lockJournal, type WriterLock } from "./writer-lock.js";

export const JOURNAL_FILE = "journal.jsonl";
const OUTPUTS_DIR = "outputs";

interface JournalOptions {
  /** Exact strings (8+ chars, e.g. API keys) replaced by [REDACTED] in everything this journal writes. */
  secrets?: readonly string[];
}

const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND;

/**
 * The append-only record of one session. Every event is on disk (in the OS, surviving a crash of this
 * process) when append returns, so the caller records a step before acting on it. One writer per journal:
 * the host layer ensures two processes never append to the same session (it takes the session's lock
 * before opening its journal), and the journal's own writer lock (writer-lock.ts) refuses a second
 * writer that got past it.
 */
export class Journal {
  readonly path: string;
  readonly outputsDir: string;
  private fd: number | null;
  private nextN: number;
  /** Bytes on disk; lets a failed write be undone so a partial line is never followed by another line. */
  private size: number;
  /** A failed write whose partial line could not be cut off: the error every later append repeats. */
  private torn: Error | undefined;

  private constructor(
    readonly dir: string,
    readonly header: JournalHeader,
    fd: number,
    lastN: number,
    size: number,
    /** Open found a half-written last line (a crash mid-write) and cut it off. */
    readonly repairedTail: boolean,
    private readonly redactor: Redactor,
    private readonly lock: WriterLock,
  ) {
    this.path = join(dir, JOURNAL_FILE);
    this.outputsDir = join(dir, OUTPUTS_DIR);
    this.fd = fd;
    this.nextN = lastN + 1;
    this.size = size;
  }

  /** A new journal in `dir` (created 0700); fails if one is already there rather than overwrite it. */
  static create(
    dir: string,
    header: Omit<JournalHeader, "type" | "version">,
    options: JournalOptions = {},
  ): Journal {
    const made = { dir: !existsSync(dir), outputs: !existsSync(join(dir, OUTPUTS_DIR)) };
    ensurePrivateDir(dir);
    ensurePrivateDir(join(dir, OUTPUTS_DIR));
    const redactor = new Redactor(options.secrets);
    const full: JournalHeader = { type: "header", version: JOURNAL_VERSION, ...header };
    // Runtime callers may pass a whole header; ours wins, and stays first on the line.
    full.type = "header";
    full.version = JOURNAL_VERSION;
    const written = redactor.value(full);
    const path = join(dir, JOURNAL_FILE);
    const cleanUp = () => {
      // A journal without its header (a full disk) would list as a damaged session: none is left instead.
      removeQuietly(() => unlinkSync(path));
      if (made.outputs) removeQuietly(() => rmdirSync(join(dir, OUTPUTS_DIR)));
      if (made.dir) removeQuietly(() => rmdirSync(dir));
    };
    let lock: WriterLock;
    try {
      lock = lockJournal(dir, full.id);
    } catch (err) {
      // The lock file is written first: a full disk shows here, and is the journal's to name.
      cleanUp();
      throw namedAfter(err, path);
    }
    let fd: number;
    try {
      fd = openSync(path, APPEND_FLAGS | constants.O_CREAT | constants.O_EXCL, 0o600);
    } catch (err) {
      lock.release();
      throw err;
    }
    try {
      fchmodSync(fd, 0o600); // the mode given to open is filtered by the umask
      const size = writeLine(fd, JSON.stringify(written), path);
      return new Journal(dir, written, fd, 0, size, false, redactor, lock);
    } catch (err) {
      closeSync(fd);
      lock.release();
      cleanUp();
      throw err;
    }
  }

  /** Re-open an existing journal to append, continuing its numbering after repairing a torn last line. */
  static open(dir: string, options: JournalOptions = {}): Journal {
    // Taken before the journal is read: the numbering continues from what is on disk under the lock.
    const lock = lockJournal(dir, basename(dir));
    try {
      return Journal.openLocked(dir, options, lock);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  private static openLocked(dir: string, options: JournalOptions, lock: WriterLock): Journal {
    const path = join(dir, JOURNAL_FILE);
    // Its tail is enough to continue the numbering (a damaged journal is marked for listings as it is read).
    const scan = readHeaderAndTail(path);
    // Appending after a torn line would glue the next event onto it and corrupt the middle of the file.
    if (scan.truncatedTail) truncateSync(path, scan.endOffset);
    ensurePrivateDir(join(dir, OUTPUTS_DIR));
    const fd = openSync(path, APPEND_FLAGS);
    const redactor = new Redactor(options.secrets);
    return new Journal(dir, scan.header, fd, scan.lastN, scan.endOffset, scan.truncatedTail, redactor, lock);
  }

  /** Bytes of the journal on disk: where the next event will start. */
  get byteLength(): number {
    return this.size;
  }

  /** `n` of the last event written; 0 when there is none. */
  get lastN(): number {
    return this.nextN - 1;
  }

  get closed(): boolean {
    return this.fd === null;
  }

  /** Stamp, write and return the event (as written: after redaction). */
  append(body: JournalBody): JournalEvent {
    const fd = this.requireOpen();
    const event = this.redactor.value({
      n: this.nextN,
      t: new Date().toISOString(),
      ...body,
    }) as JournalEvent;
    const line = JSON.stringify(event);
    try {
      this.size += writeLine(fd, line, this.path);
    } catch (err) {
      // A failed write (a full disk) may have left part of the line: cut back to the last whole one, so
      // the next line is not glued onto it and the journal never reads as damaged.
      try {
        ftruncateSync(fd, this.size);
      } catch {
        // Not cut: nothing more may be appended (it would follow the half line). open() cuts the torn
        // tail on the next run, and readers take it for what a crash leaves, not for damage.
        this.torn = err as Error;
      }
      throw err;
    }
    this.nextN++;
    return event;
  }

  redact(text: string): string {
    return this.redactor.text(text);
  }

  /** Write `outputs/NAME` (0600; text is redacted, bytes are not) and return its path relative to the session dir. */
  writeOutputFile(name: string, data: string | Buffer): string {
    if (name === "" || name === "." || name === ".." || /[/\\\0]/.test(name)) {
      throw new Error(`Invalid output file name: ${JSON.stringify(name)}`);
    }
    const path = join(this.outputsDir, name);
    // The outputs folder is the kernels' to write too (a sandboxed one's): never through a link there.
    writeNoFollow(path, typeof data === "string" ? this.redactor.text(data) : data, 0o600);
    return `${OUTPUTS_DIR}/${name}`;
  }

  /** A path inside the session dir as the journal stores it: relative, with forward slashes. */
  relativePath(absolutePath: string): string {
    return relative(this.dir, absolutePath).split(sep).join("/");
  }

  /**
   * No more appends; the lock is released now. The lines are already in the file (each append is one
   * write), so only the flush to stable storage is left: it runs on libuv's thread pool and the
   * descriptor closes after it. An fsync here blocked the event loop 10-15 ms per journal on a busy
   * disk, for every child of an rlm.map in turn (issue 24).
   */
  close(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    this.lock.release();
    fsync(fd, () => close(fd, () => {}));
  }

  private requireOpen(): number {
    if (this.fd === null) throw new Error(`Journal is closed: ${this.path}`);
    if (this.torn) throw this.torn;
    return this.fd;
  }
}

/**
 * One write() per line, on an O_APPEND descriptor, so lines never interleave. The loop only repeats after a
 * short write, which regular files do only when the disk is full.
 */
function writeLine(fd: number, line: string, path: string): number {
  const buf = Buffer.from(`${line}\n`, "utf8");
  let written = 0;
  try {
    while (written < buf.length) written += writeSync(fd, buf, written, buf.length - written);
  } catch (error) {
    throw namedAfter(error, path);
  }
  return buf.length;
}

/** A write to a descriptor names no file; the journal's is what a person must know (a full disk). */
function namedAfter(error: unknown, path: string): unknown {
  const e = error as NodeJS.ErrnoException;
  if (typeof e.code === "string" && e.path === undefined) {
    e.path = path;
    // "ENOSPC: no space left on device, write" becomes "cannot write PATH: no space left on device".
    const reason = e.message.replace(/^[A-Z]+: /, "").replace(/, write$/, "");
    e.message = `cannot write ${path}: ${reason}`;
  }
  return error;
}

function removeQuietly(remove: () => void): void {
  try {
    remove();
  } catch {
    // Left behind, it is only clutter; the error that stopped the write is what gets reported.
  }
}
