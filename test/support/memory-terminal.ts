// A pi-tui terminal in memory, for tests of real pi-tui without a pty: it counts the frames drawn
// (each starts with a synchronized-output mark) and keeps what was written.
import type { Terminal } from "@mariozechner/pi-tui";

export class MemoryTerminal implements Terminal {
  frames = 0;
  /** Everything written, for a test to look at what a frame drew. */
  written = "";
  input: (data: string) => void = () => {};
  start(onInput: (data: string) => void): void {
    this.input = onInput;
  }
  stop(): void {}
  async drainInput(): Promise<void> {}
  write(data: string): void {
    this.written += data;
    if (data.includes("\x1b[?2026h")) this.frames++;
  }
  get columns(): number {
    return 40;
  }
  get rows(): number {
    return 10;
  }
  get kittyProtocolActive(): boolean {
    return false;
  }
  moveBy(): void {}
  hideCursor(): void {}
  showCursor(): void {}
  clearLine(): void {}
  clearFromCursor(): void {}
  clearScreen(): void {}
  setTitle(): void {}
  setProgress(): void {}
}
