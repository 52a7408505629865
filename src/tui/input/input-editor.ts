import { Editor } from "@mariozechner/pi-tui";

/**
 * The input line. pi-tui's Editor draws its cursor (inverse video) whether or not it has the focus;
 * while a dialog has it, a second cursor in the input would say typing goes there, so it is hidden.
 */
export class InputEditor extends Editor {
  override render(width: number): string[] {
    const lines = super.render(width);
    if (this.focused) return lines;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the cursor is an escape sequence
    return lines.map((line) => line.replace(/\u001b\[7m(.*?)\u001b\[0m/, "$1"));
  }
}
