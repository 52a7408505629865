// A cell's output as it streams in, kept as lines so a view can show head and tail without splitting
// megabytes of text on every frame. Memory stays bounded: past `maxLines` the middle is dropped (the
// journal's outputs/ file has all of it), counted so the view can say how much.

interface OutputBufferOptions {
  /** Lines kept from the start. */
  keepHead?: number;
  /** Lines kept from the end once the buffer is over its limit. */
  keepTail?: number;
}

export class OutputBuffer {
  private readonly head: string[] = [];
  private tail: string[] = [];
  /** The unfinished last line (no newline yet). */
  private partial = "";
  private dropped = 0;
  /** The last text ended in a carriage return: what comes next overwrites the line from its start. */
  private returned = false;
  private readonly keepHead: number;
  private readonly keepTail: number;
  /** Characters received in all. */
  chars = 0;

  constructor(options: OutputBufferOptions = {}) {
    this.keepHead = options.keepHead ?? 200;
    this.keepTail = options.keepTail ?? 2000;
  }

  /**
   * Adds streamed text. A carriage return without a newline rewrites the current line, as a terminal
   * would, so progress bars show their latest state instead of thousands of lines.
   */
  append(text: string): void {
    if (text.length === 0) return;
    this.chars += text.length;
    const pieces = text.split("\n");
    for (let i = 0; i < pieces.length; i++) {
      let piece = pieces[i] as string;
      const last = i === pieces.length - 1;
      if (this.returned && piece !== "") {
        piece = `\r${piece}`;
        this.returned = false;
      }
      if (last && piece.endsWith("\r")) this.returned = true;
      this.partial = overwrite(this.partial, piece);
      if (!last) {
        this.returned = false;
        this.pushLine(this.partial);
        this.partial = "";
      }
    }
  }

  private pushLine(line: string): void {
    if (this.head.length < this.keepHead) {
      this.head.push(line);
      return;
    }
    this.tail.push(line);
    if (this.tail.length > this.keepTail * 2) {
      // Trim in batches: one splice per keepTail lines instead of one shift per line.
      const excess = this.tail.length - this.keepTail;
      this.tail = this.tail.slice(excess);
      this.dropped += excess;
    }
  }

  /** Every line there is (with the current unfinished one), and how many were dropped from the middle. */
  lineCount(): number {
    return this.head.length + this.dropped + this.tail.length + (this.partial ? 1 : 0);
  }

  /** The first `n` lines. */
  first(n: number): string[] {
    return this.all().slice(0, n);
  }

  /** The last `n` lines (including the unfinished one). */
  last(n: number): string[] {
    const withPartial = this.partial ? [...this.tail.slice(-n), this.partial] : this.tail.slice(-n);
    if (withPartial.length >= n) return withPartial.slice(-n);
    const fromHead = n - withPartial.length;
    return [...(this.dropped === 0 ? this.head.slice(-fromHead) : []), ...withPartial];
  }

  /** Lines kept (head, then tail), with the count of lines dropped in between. */
  kept(): { head: string[]; dropped: number; tail: string[] } {
    const tail = this.partial ? [...this.tail, this.partial] : [...this.tail];
    return { head: [...this.head], dropped: this.dropped, tail };
  }

  private all(): string[] {
    const { head, tail } = this.kept();
    return [...head, ...tail];
  }
}

/** `current` rewritten by `piece`, honouring carriage returns inside it. */
function overwrite(current: string, piece: string): string {
  if (!piece.includes("\r")) return current + piece;
  const parts = piece.split("\r");
  let line = current + (parts[0] as string);
  for (const part of parts.slice(1)) {
    // "\r\n" reaches here as a trailing empty part: keep the line as it is.
    if (part === "") continue;
    line = part + line.slice(part.length);
  }
  return line;
}
