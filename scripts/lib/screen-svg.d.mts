// Types of screen-svg.mjs for the TypeScript tests (the module itself is plain JS for scripts/).
import type { IBufferCell, Terminal } from "@xterm/headless";

export interface Theme {
  foreground: string;
  background: string;
  cursor: string;
  /** The 16 ANSI colours, 0–15. */
  ansi: string[];
}

export interface CellColor {
  mode: "default" | "palette" | "rgb";
  /** Palette index 0–255, 0xRRGGBB, or -1 for the default colour. */
  value: number;
  /** "#rrggbb"; undefined for the default colour (the theme decides). */
  hex: string | undefined;
}

export interface SvgOptions {
  /** Where to draw a block cursor; null/false for none; default the emulator's cursor position. */
  cursor?: { x: number; y: number } | null | false;
  /** Text of a window title bar; no bar when omitted. */
  title?: string;
  fontSize?: number;
  theme?: Theme;
}

export const DEFAULT_THEME: Theme;
export function paletteHex(index: number, theme?: Theme): string;
export function cellColor(cell: IBufferCell, which: "fg" | "bg", theme?: Theme): CellColor;
export function screenToSvg(term: Terminal, options?: SvgOptions): string;
