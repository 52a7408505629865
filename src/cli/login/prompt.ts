// The line prompts of `relm login` and `relm login --search` where the picker cannot be drawn: the current
// value as the default, the key never echoed, Ctrl-C (or the end of input) cancelling with nothing written.
import { createInterface, type Interface } from "node:readline";
import { Writable } from "node:stream";
import type { RunIo } from "../run.js";

/** Ctrl-C at a prompt: nothing is written. */
export class LoginCancelled extends Error {}

/** Line prompts on a terminal whose echo can be switched off for the key. */
export class Prompt {
  private muted = false;
  private readonly rl: Interface;

  constructor(private readonly io: RunIo) {
    const echo = new Writable({
      write: (chunk, _encoding, done) => {
        if (!this.muted) io.stdout.write(chunk);
        done();
      },
    });
    this.rl = createInterface({ input: process.stdin, output: echo, terminal: true });
  }

  ask(question: string, fallback?: string): Promise<string> {
    const suffix = fallback ? ` [${fallback}]` : "";
    return this.question(`${question}${suffix}: `).then((a) => a.trim() || fallback || "");
  }

  /** The answer is not echoed, not even as stars: its length is nobody's business either. */
  async secret(question: string): Promise<string> {
    const answer = this.question(`${question}: `);
    this.muted = true;
    try {
      return (await answer).trim();
    } finally {
      this.muted = false;
      this.io.stdout.write("\n");
    }
  }

  close(): void {
    this.rl.close();
  }

  private question(text: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const cancel = () => reject(new LoginCancelled());
      this.rl.once("SIGINT", cancel);
      this.rl.once("close", cancel);
      this.rl.question(text, (answer) => {
        this.rl.off("SIGINT", cancel);
        this.rl.off("close", cancel);
        resolve(answer);
      });
    });
  }
}
