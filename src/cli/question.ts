// The CLI's line questions at a terminal: `relm login`'s prompts (where the picker cannot be drawn),
// `relm attach`'s "reopen it?" in the plain view, `relm refine`'s "apply?", `relm trust`'s "trust it?".
// One reader, so Ctrl-C (or the end of input) does the same at each: the question is cancelled
// (QuestionCancelled), the command says so in one line and exits 130 (interrupted), having changed
// nothing. Line mode's own prompt is not one of these: there Ctrl-C interrupts the turn or quits the
// session (cli/interactive.ts).
import { createInterface, type Interface } from "node:readline";
import { Writable } from "node:stream";
import { EXIT } from "./exit-codes.js";

/** Ctrl-C or the end of input at a question: the command ends with nothing changed. */
export class QuestionCancelled extends Error {}

/** Line questions on a terminal whose echo can be switched off for a secret. */
export class Prompt {
  private muted = false;
  private readonly rl: Interface;

  constructor(private readonly out: NodeJS.WritableStream) {
    const echo = new Writable({
      write: (chunk, _encoding, done) => {
        if (!this.muted) out.write(chunk);
        done();
      },
    });
    this.rl = createInterface({ input: process.stdin, output: echo, terminal: true });
  }

  /** "QUESTION [FALLBACK]: ", the answer trimmed, or the fallback for none. */
  ask(question: string, fallback?: string): Promise<string> {
    const suffix = fallback ? ` [${fallback}]` : "";
    return this.line(`${question}${suffix}: `).then((a) => a.trim() || fallback || "");
  }

  /** The answer is not echoed, not even as stars: its length is nobody's business either. */
  async secret(question: string): Promise<string> {
    const answer = this.line(`${question}: `);
    this.muted = true;
    try {
      return (await answer).trim();
    } finally {
      this.muted = false;
      this.out.write("\n");
    }
  }

  close(): void {
    this.rl.close();
  }

  /** `text` as written, the answer as typed; rejects with QuestionCancelled on Ctrl-C or end of input. */
  line(text: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const cancel = () => reject(new QuestionCancelled());
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

/** One question (`text` as written, on `out`), its answer trimmed; QuestionCancelled as Prompt's. */
export async function askOnce(text: string, out: NodeJS.WritableStream): Promise<string> {
  const prompt = new Prompt(out);
  try {
    return (await prompt.line(text)).trim();
  } finally {
    prompt.close();
  }
}

/** How a command ends on a cancelled question: `relm: WHAT` on its own line, exit code 130. */
export function cancelled(stderr: NodeJS.WritableStream, what: string): number {
  stderr.write(`\nrelm: ${what}\n`);
  return EXIT.interrupted;
}
