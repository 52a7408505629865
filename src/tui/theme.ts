// Colours and glyphs of the terminal UI in one place. NO_COLOR (https://no-color.org) turns colour off;
// structure (marks, indentation, folding) carries the meaning on its own.

import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui";
import { Chalk, type ChalkInstance } from "chalk";
import { highlightLines } from "./highlight-lazy.js";

export interface Theme {
  color: boolean;
  c: ChalkInstance;
  dim(text: string): string;
  accent(text: string): string;
  ok(text: string): string;
  warn(text: string): string;
  error(text: string): string;
  user(text: string): string;
  code(text: string): string;
  border(text: string): string;
  markdown: MarkdownTheme;
  select: SelectListTheme;
  editor: EditorTheme;
}

export function makeTheme(env: NodeJS.ProcessEnv): Theme {
  const color = !env.NO_COLOR && env.TERM !== "dumb";
  const c = new Chalk({ level: color ? (env.COLORTERM === "truecolor" ? 3 : 2) : 0 });
  const select: SelectListTheme = {
    selectedPrefix: (t) => c.cyan(t),
    selectedText: (t) => c.cyan.bold(t),
    description: (t) => c.gray(t),
    scrollInfo: (t) => c.gray(t),
    noMatch: (t) => c.gray(t),
  };
  const markdown: MarkdownTheme = {
    heading: (t) => c.bold.cyan(t),
    link: (t) => c.underline.blue(t),
    linkUrl: (t) => c.gray(t),
    code: (t) => c.yellow(t),
    codeBlock: (t) => t,
    codeBlockBorder: (t) => c.gray(t),
    quote: (t) => c.italic(t),
    quoteBorder: (t) => c.gray(t),
    hr: (t) => c.gray(t),
    listBullet: (t) => c.cyan(t),
    bold: (t) => c.bold(t),
    italic: (t) => c.italic(t),
    strikethrough: (t) => c.strikethrough(t),
    underline: (t) => c.underline(t),
    highlightCode: color ? (code, lang) => highlightLines(code, lang) : undefined,
  };
  return {
    color,
    c,
    dim: (t) => c.gray(t),
    accent: (t) => c.cyan(t),
    ok: (t) => c.green(t),
    warn: (t) => c.yellow(t),
    error: (t) => c.red(t),
    user: (t) => c.bold(t),
    code: (t) => t,
    border: (t) => c.gray(t),
    markdown,
    select,
    editor: { borderColor: (t) => c.gray(t), selectList: select },
  };
}
