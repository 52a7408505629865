// Reading a file the host takes from a folder someone else can write: the project (a sandboxed kernel
// writes it; a cloned repository brings it). A plain readFileSync obeys whatever is at the name: a FIFO
// blocks it forever (a cell's `os.mkfifo('AGENTS.md')` hung every later session in the project at its
// start, with no word), a link to /dev/zero never ends, and a sparse file of gigabytes costs seconds and
// memory before failing. Here only a regular file is read, and at most a given number of bytes.

import { closeSync, constants, existsSync, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { within } from "./paths.js";

/** What the host reads of a project's settings file at most (hooks, MCP servers, specs, SKILL.md). */
export const PROJECT_FILE_BYTES = 1024 * 1024;

/** A file that is not one the host reads: not a regular file, or larger than it reads. */
export class FileShapeError extends Error {
  constructor(
    message: string,
    readonly path: string,
    readonly code: "ENOTREG" | "EFBIG" | "EXDEV",
  ) {
    super(message);
    this.name = "FileShapeError";
  }
}

/** What a file that is not a regular one is, by its type bits. */
const KINDS = new Map([
  [constants.S_IFIFO, "a FIFO"],
  [constants.S_IFCHR, "a character device"],
  [constants.S_IFBLK, "a block device"],
  [constants.S_IFSOCK, "a socket"],
  [constants.S_IFDIR, "a directory"],
]);

function kindOf(mode: number): string {
  return KINDS.get(mode & constants.S_IFMT) ?? "not a regular file";
}

/** Where the open file `fd` (opened as `path`) really is: Linux says it of the descriptor itself. */
function openedPath(fd: number, path: string): string {
  const self = `/proc/self/fd/${fd}`;
  return realpathSync(existsSync(self) ? self : path);
}

interface BoundedRead {
  cut?: boolean;
  inside?: string;
}

/**
 * The bytes of `path` when it is a regular file (a link to one is followed) of at most `maxBytes`;
 * `cut: true` reads its first `maxBytes` instead of refusing a larger one. With `inside`, the file must
 * really be in that folder: a link a kernel planted in the project (AGENTS.md -> $RELM_HOME/config.json)
 * would otherwise have the host read, into a model's prompt, what the sandbox hides from the kernel.
 * Opened without waiting (a FIFO opens at once) and checked on the open file, so nothing can be swapped
 * in between. Throws the usual fs errors (ENOENT, ...) and FileShapeError.
 */
export function readBoundedFile(path: string, maxBytes: number, options: BoundedRead = {}): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    if (options.inside !== undefined) {
      const real = openedPath(fd, path);
      if (!within(real, realpathSync(options.inside)))
        throw new FileShapeError(`${path} leads outside ${options.inside} (to ${real})`, path, "EXDEV");
    }
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw new FileShapeError(`${path} is ${kindOf(stat.mode)}, not a regular file`, path, "ENOTREG");
    if (stat.size > maxBytes && !options.cut)
      throw new FileShapeError(
        `${path} is ${stat.size} bytes, more than the ${maxBytes} relm reads of it`,
        path,
        "EFBIG",
      );
    const buf = Buffer.alloc(Math.min(stat.size, maxBytes));
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break; // it shrank meanwhile
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** readBoundedFile's bytes as UTF-8 text. */
export function readBoundedText(path: string, maxBytes: number, options: BoundedRead = {}): string {
  return readBoundedFile(path, maxBytes, options).toString("utf8");
}
