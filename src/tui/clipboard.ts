// /copy: the last answer onto the clipboard through the terminal (OSC 52), which works over ssh and in
// tmux (with set-clipboard on) where no clipboard program of this machine would reach the person's.
import type { AppApi } from "./app-api.js";

/** Terminals cap what one OSC 52 sequence may carry; xterm's default is about 100,000 bytes of base64. */
const MAX_BYTES = 74_000;

/** The escape sequence that asks the terminal to put `text` on the clipboard. */
function osc52(text: string): string {
  return `\x1b]52;c;${Buffer.from(text, "utf8").toString("base64")}\x07`;
}

/** /copy: says what it copied, or why nothing. */
export function copyLastAnswer(api: AppApi, answer: string | undefined): void {
  if (!answer) {
    api.note(api.theme.dim("no answer to copy yet"));
    return;
  }
  if (Buffer.byteLength(answer) > MAX_BYTES) {
    api.note(
      api.theme.warn(
        `the last answer is too long for the terminal's clipboard (over ${MAX_BYTES} bytes): /export writes it to a file`,
      ),
    );
    return;
  }
  api.tui.terminal.write(osc52(answer));
  const lines = answer.split("\n").length;
  api.note(
    api.theme.ok(
      `✓ copied the last answer (${lines} line${lines === 1 ? "" : "s"}, ${answer.length} chars) to the clipboard`,
    ),
  );
}
