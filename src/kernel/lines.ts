// Line framing, the one home of every newline-delimited JSON stream: LineSplitter for text from a trusted
// pipe (a kernel's protocol), BoundedLineSplitter for bytes from a peer that must not make us hold an
// endless line (a session socket's client, an MCP server's stdout).
import { constants } from "node:buffer";

/** The longest line a session host accepts from a client (64 MiB): longer means broken or hostile. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** The longest line Node can decode into one string at all: the most a client accepts from its host. */
export const MAX_DECODABLE_BYTES = constants.MAX_STRING_LENGTH;

/** Writes `message` as one JSON line; resolves once `output` takes more (at once, or when it drains). */
export function writeJsonLine(output: NodeJS.WritableStream, message: unknown): Promise<void> {
  return new Promise((resolve) => {
    if (output.write(`${JSON.stringify(message)}\n`)) resolve();
    else output.once("drain", () => resolve());
  });
}

/**
 * Splits a stream of text into lines, keeping a partial last line for the next chunk; empty lines are
 * skipped. Unbounded: a kernel's pipe is trusted, and its long lines (a file read back) are meant.
 */
export class LineSplitter {
  private rest = "";

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: string): void {
    let start = 0;
    let end = chunk.indexOf("\n");
    if (end < 0) {
      this.rest += chunk;
      return;
    }
    let line = this.rest + chunk.slice(0, end);
    this.rest = "";
    for (;;) {
      if (line) this.onLine(line);
      start = end + 1;
      end = chunk.indexOf("\n", start);
      if (end < 0) break;
      line = chunk.slice(start, end);
    }
    this.rest = chunk.slice(start);
  }
}

/** Above this, the buffer of a finished long line is released instead of kept for the next one. */
const KEEP_BYTES = 1024 * 1024;

/** How much of each end of a line too long to keep is kept, to tell what it was (a JSON-RPC id). */
const EDGE_BYTES = 4096;

/**
 * Splits a byte stream into UTF-8 lines (newline = 0x0A, which never occurs inside a multi-byte
 * character, so lines are decoded whole; invalid bytes become U+FFFD). At most `maxBytes` of an
 * unfinished line are held, in one buffer that grows by doubling (many tiny reads cost no per-read
 * overhead). A line longer than that is reported once to `onOverflow` and the rest of it is skipped up
 * to its newline without being kept; when that newline comes, `onSkipped` (if given) gets the first and
 * last few kB of the line, so that a reader can still answer it (by the id of a JSON-RPC request).
 */
export class BoundedLineSplitter {
  private buffer = Buffer.alloc(0);
  private size = 0;
  private skipping = false;
  private closed = false;
  /** The start and (so far) the end of the line being skipped. */
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
    readonly maxBytes = MAX_LINE_BYTES,
    private readonly onSkipped?: (edges: { head: string; tail: string }) => void,
  ) {}

  /** Bytes of the unfinished line held now (never more than maxBytes). */
  get buffered(): number {
    return this.size;
  }

  /** Drops what is held; later pushes are ignored (the connection is going away). */
  close(): void {
    this.closed = true;
    this.release();
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length && !this.closed) {
      const newline = chunk.indexOf(10, start);
      const end = newline < 0 ? chunk.length : newline;
      if (this.skipping) {
        this.keepTail(chunk.subarray(start, end));
        if (newline >= 0) {
          this.skipping = false;
          this.skipped();
        }
      } else if (this.size + (end - start) > this.maxBytes) {
        const held = this.buffer.subarray(0, Math.min(this.size, EDGE_BYTES));
        this.head = Buffer.concat([held, chunk.subarray(start, Math.min(end, start + EDGE_BYTES))]).subarray(
          0,
          EDGE_BYTES,
        );
        this.tail = Buffer.alloc(0);
        this.keepTail(chunk.subarray(start, end));
        this.release();
        this.skipping = newline < 0;
        this.onOverflow();
        if (newline >= 0 && !this.closed) this.skipped();
      } else if (newline < 0) {
        this.append(chunk.subarray(start, end));
      } else if (this.size === 0) {
        this.onLine(chunk.toString("utf8", start, end));
      } else {
        this.append(chunk.subarray(start, end));
        const line = this.buffer.toString("utf8", 0, this.size);
        if (this.buffer.length > KEEP_BYTES) this.release();
        else this.size = 0;
        this.onLine(line);
      }
      start = end + 1;
    }
  }

  private keepTail(piece: Buffer): void {
    if (!this.onSkipped) return;
    this.tail =
      piece.length >= EDGE_BYTES
        ? Buffer.from(piece.subarray(piece.length - EDGE_BYTES))
        : Buffer.concat([this.tail, piece]).subarray(-EDGE_BYTES);
  }

  private skipped(): void {
    const edges = { head: this.head.toString("utf8"), tail: this.tail.toString("utf8") };
    this.head = Buffer.alloc(0);
    this.tail = Buffer.alloc(0);
    this.onSkipped?.(edges);
  }

  private append(piece: Buffer): void {
    const needed = this.size + piece.length;
    if (needed > this.buffer.length) {
      const capacity = Math.min(this.maxBytes, Math.max(needed, this.buffer.length * 2, 4096));
      const grown = Buffer.allocUnsafe(capacity);
      this.buffer.copy(grown, 0, 0, this.size);
      this.buffer = grown;
    }
    piece.copy(this.buffer, this.size);
    this.size = needed;
  }

  private release(): void {
    this.buffer = Buffer.alloc(0);
    this.size = 0;
  }
}
