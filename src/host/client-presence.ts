// Who is following a session host's live events. While anyone is, a detached host neither idles out
// nor frees its kernel; the terminal UI's host waits for its first client before the first turn, since
// a turn's streamed text is never journaled and would be lost to a client that attached after it began.

export class ClientPresence {
  private count = 0;
  private onFirst: (() => void) | undefined;

  /** @param changed told each time the number of clients changes (0 when the last one left). */
  constructor(private readonly changed: (count: number) => void) {}

  get attached(): number {
    return this.count;
  }

  /** Resolves once a client has attached, or after `timeoutMs`. */
  first(timeoutMs: number): Promise<void> {
    if (this.count > 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.onFirst = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** The server's count of attached clients. */
  set(count: number): void {
    this.count = count;
    if (count > 0) {
      this.onFirst?.();
      this.onFirst = undefined;
    }
    this.changed(count);
  }
}
