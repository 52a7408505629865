// Colours and glyphs of the terminal UI in one place. NO_COLOR (https://no-color.org) turns colour off;
// structure (marks, indentation, folding) carries the meaning on its own.
//
// Three palettes: dark, light and high-contrast (/theme switches, tui/theme-choice.ts picks the first
// one). Secondary text is a fixed grey of the 256-colour cube, never the palette's "bright black"
// (SGR 90), which themes like Solarized Dark draw in nearly the background's colour; body text (cell
// output, answers) keeps the terminal's own foreground.

import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui";
import { Chalk, type ChalkInstance } from "chalk";
import type { Paint } from "../commands/types.js";
import { highlightLines } from "./transcript/highlight-lazy.js";

export const THEME_NAMES = ["dark", "light", "high-contrast"] as const;
export type ThemeName = (typeof THEME_NAMES)[number];

/** The tones every front end paints (commands/types.ts), and the UI's own parts. */
export interface Theme extends Paint {
  name: ThemeName;
  color: boolean;
  c: ChalkInstance;
  user(text: string): string;
  code(text: string): string;
  border(text: string): string;
  markdown: MarkdownTheme;
  select: SelectListTheme;
  editor: EditorTheme;
}

/** The colours of one palette. */
function palette(c: ChalkInstance, name: ThemeName): Paint & { link: (text: string) => string } {
  switch (name) {
    case "light":
      return {
        dim: (t) => c.ansi256(242)(t),
        accent: (t) => c.ansi256(25)(t),
        ok: (t) => c.ansi256(28)(t),
        warn: (t) => c.ansi256(130)(t),
        error: (t) => c.ansi256(160)(t),
        link: (t) => c.underline.ansi256(25)(t),
      };
    case "high-contrast":
      return {
        dim: (t) => t,
        accent: (t) => c.bold.cyanBright(t),
        ok: (t) => c.bold.greenBright(t),
        warn: (t) => c.bold.yellowBright(t),
        error: (t) => c.bold.redBright(t),
        link: (t) => c.underline.bold(t),
      };
    default:
      return {
        dim: (t) => c.ansi256(246)(t),
        accent: (t) => c.cyan(t),
        ok: (t) => c.green(t),
        warn: (t) => c.yellow(t),
        error: (t) => c.red(t),
        link: (t) => c.underline.blue(t),
      };
  }
}

export function makeTheme(env: NodeJS.ProcessEnv, name: ThemeName = "dark"): Theme {
  const color = !env.NO_COLOR && env.TERM !== "dumb";
  const c = new Chalk({ level: color ? (env.COLORTERM === "truecolor" ? 3 : 2) : 0 });
  const theme = { color, c, code: (t: string) => t, user: (t: string) => c.bold(t) } as Theme;
  theme.markdown = {} as MarkdownTheme;
  theme.select = {} as SelectListTheme;
  theme.editor = { borderColor: (t) => t, selectList: theme.select };
  setThemeColors(theme, name);
  return theme;
}

/**
 * Paints `theme` with palette `name`, in place: every component holds the one theme object, so a
 * switch shows on the next full redraw without rebuilding them.
 */
export function setThemeColors(theme: Theme, name: ThemeName): void {
  const c = theme.c;
  const { link, ...p } = palette(c, name);
  Object.assign(theme, p, { name, border: p.dim });
  Object.assign(theme.select, {
    selectedPrefix: p.accent,
    selectedText: (t: string) => c.bold(p.accent(t)),
    description: p.dim,
    scrollInfo: p.dim,
    noMatch: p.dim,
  } satisfies SelectListTheme);
  Object.assign(theme.markdown, {
    heading: (t: string) => c.bold(p.accent(t)),
    link,
    linkUrl: p.dim,
    code: name === "light" ? (t: string) => c.ansi256(94)(t) : (t: string) => c.yellow(t),
    codeBlock: (t: string) => t,
    codeBlockBorder: p.dim,
    quote: (t: string) => c.italic(t),
    quoteBorder: p.dim,
    hr: p.dim,
    listBullet: p.accent,
    bold: (t: string) => c.bold(t),
    italic: (t: string) => c.italic(t),
    strikethrough: (t: string) => c.strikethrough(t),
    underline: (t: string) => c.underline(t),
    highlightCode: theme.color ? (code: string, lang?: string) => highlightLines(code, lang) : undefined,
  } satisfies MarkdownTheme);
  theme.editor.borderColor = p.dim;
}
