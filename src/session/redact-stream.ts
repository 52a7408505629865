import type { Redactor } from "./redact.js";

/**
 * Redacts text that arrives in pieces (a streamed answer, live cell output): a secret cut between two
 * pieces is in neither, so the end of each piece that could begin one is held back and shown with the
 * next piece of the same stream, or when the stream ends (`flush`).
 */
export class StreamRedactor {
  /** Per stream: text received but not yet shown, always the start of some secret. */
  private readonly held = new Map<string, string>();

  constructor(private readonly redactor: Redactor) {}

  /** What of `stream` can be shown now that `piece` arrived. */
  push(stream: string, piece: string): string {
    const text = this.redactor.text((this.held.get(stream) ?? "") + piece);
    const keep = this.redactor.openTail(text);
    if (keep > 0) this.held.set(stream, text.slice(text.length - keep));
    else this.held.delete(stream);
    return text.slice(0, text.length - keep);
  }

  /** Whether `stream` holds text back now. */
  holds(stream: string): boolean {
    return this.held.has(stream);
  }

  /** Ends the streams `which` selects; returns what each still held (not a secret, as it never completed). */
  flush(which: (stream: string) => boolean = () => true): [stream: string, text: string][] {
    const out: [string, string][] = [];
    for (const [stream, text] of this.held) {
      if (!which(stream)) continue;
      this.held.delete(stream);
      out.push([stream, text]);
    }
    return out;
  }
}
