// As in the terminal UI (pi-tui's Markdown): only `~~text~~` strikes through. GFM's single `~` would
// strike "5%-" out of "~5%-~8%", and paths with ~ in them. One rule for the html export and the web page.
// A plain object's function: marked copies a tokenizer's own properties, so a subclass's del() (a
// prototype method) is never called.
import type { TokenizerThis, Tokens } from "marked";

const STRICT = /^(~~)(?=[^\s~])((?:\\.|[^\\])*?(?:\\.|[^\s~\\]))\1(?=[^~]|$)/;

export const strictStrikethrough = {
  del(this: TokenizerThis, src: string): Tokens.Del | undefined {
    const match = STRICT.exec(src);
    if (!match) return undefined;
    const text = match[2] ?? "";
    return { type: "del", raw: match[0], text, tokens: this.lexer.inlineTokens(text) };
  },
};
