import { closeSync, openSync } from "node:fs";
import { forEachLine, forEachLineEnd } from "../session/scan.js";

/**
 * Byte offsets of a journal's events, so a client that re-attaches with its last event number is sent
 * exactly the events it misses, reading only those bytes rather than the whole file.
 */
export class JournalIndex {
  /** ends[n] = byte offset just past event n; ends[0] = just past the header line. */
  private readonly ends: number[] = [];

  constructor(private readonly path: string) {}

  /** Indexes what is on disk now (a resumed session's history). */
  scan(): void {
    this.ends.length = 0;
    const fd = openSync(this.path, "r");
    try {
      forEachLineEnd(fd, 0, Number.POSITIVE_INFINITY, (end) => this.ends.push(end));
    } finally {
      closeSync(fd);
    }
  }

  /** Records that event `n` ends at `end` (called right after the journal appended it). */
  note(n: number, end: number): void {
    this.ends[n] = end;
  }

  get lastN(): number {
    return this.ends.length - 1;
  }

  /** Calls `emit` with each event after `after`, in order; returns the last n sent (or `after`). */
  replay(after: number, emit: (event: unknown) => void): number {
    const from = Math.max(0, Math.min(after, this.lastN));
    const start = this.ends[from];
    const end = this.ends[this.lastN];
    if (start === undefined || end === undefined || end <= start) return from;
    const fd = openSync(this.path, "r");
    let last = from;
    try {
      forEachLine(fd, start, end, (line) => {
        if (line === "") return;
        const event = JSON.parse(line) as { n: number };
        last = event.n;
        emit(event);
      });
    } finally {
      closeSync(fd);
    }
    return last;
  }
}
