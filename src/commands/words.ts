import { UserError } from "../config/errors.js";

/** A slash command's arguments could not be read: a `quote` left unclosed. */
export class ArgumentSyntaxError extends UserError {
  override name = "ArgumentSyntaxError";
  override readonly exitCode = 2;

  constructor(readonly quote: '"' | "'") {
    super(`unclosed ${quote === '"' ? "double" : "single"} quote`);
  }
}

/**
 * Splits a command line into words the way a POSIX shell does for plain words: whitespace separates,
 * 'single quotes' keep everything literally, "double quotes" keep spaces and allow \" \\ \$ \` escapes,
 * and a backslash outside quotes escapes the next character. No expansion of any kind happens, so
 * `/autonomous on "npm test -- --watch=false"` is two words: on, and the whole gate command.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) {
        word += line[i + 1];
        i++;
      } else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === "\\" && i + 1 < line.length) {
      word += line[i + 1];
      inWord = true;
      i++;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new ArgumentSyntaxError(quote);
  if (inWord) words.push(word);
  return words;
}
