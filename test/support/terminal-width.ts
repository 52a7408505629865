// Character widths for the test terminal as modern terminals (and pi-tui's layout) count them. xterm.js
// alone uses Unicode 6 tables, where an emoji such as 😀 takes one cell: a UI that (rightly) gives it two
// would then look misaligned or wrapped in the emulator and nowhere else.
import type { IUnicodeVersionProvider } from "@xterm/headless";

// East Asian Wide and Fullwidth ranges (not expressible as a RegExp property in JavaScript).
const WIDE: [number, number][] = [
  [0x1100, 0x115f],
  [0x2329, 0x232a],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x18cff],
  [0x1b000, 0x1b2ff],
  [0x1f200, 0x1f2ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}\u1160-\u11ff]$/u;
const EMOJI = /^\p{Emoji_Presentation}$/u;
const VS16 = 0xfe0f;

function wcwidth(cp: number): 0 | 1 | 2 {
  if (cp < 32 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp < 0x300) return 1;
  const char = String.fromCodePoint(cp);
  if (ZERO.test(char)) return 0;
  if (EMOJI.test(char)) return 2;
  for (const [from, to] of WIDE) if (cp >= from && cp <= to) return 2;
  return 1;
}

// xterm.js packs a character's properties as (state << 3) | (width << 1) | joinsPrevious; our state
// bit 1 means "this was a zero-width joiner", so the next emoji joins the same cell cluster.
const AFTER_ZWJ = 1;
const pack = (state: number, width: number, join: boolean) =>
  (state << 3) | ((width & 3) << 1) | (join ? 1 : 0);
const widthOf = (props: number) => (props >> 1) & 3;
const ZWJ = 0x200d;
const MODIFIER = /^\p{Emoji_Modifier}$/u;

/** A Unicode provider for term.unicode.register(); activate it with term.unicode.activeVersion = its version. */
export const modernWidths: IUnicodeVersionProvider = {
  version: "relm-modern",
  wcwidth,
  charProperties(cp, preceding) {
    const width = wcwidth(cp);
    const before = preceding === 0 ? 0 : widthOf(preceding);
    if (before === 0) return pack(0, width, false);
    // Combining marks, ZWJ, variation selectors: part of the character before. VS16 asks for the emoji
    // presentation, two cells wide ("❤️").
    if (width === 0) return pack(cp === ZWJ ? AFTER_ZWJ : 0, cp === VS16 ? 2 : before, true);
    // The rest of a ZWJ sequence (👩‍💻) and skin-tone modifiers stay in the emoji's two cells.
    const joins = ((preceding >> 3) & AFTER_ZWJ) !== 0 || MODIFIER.test(String.fromCodePoint(cp));
    return joins ? pack(0, Math.max(width, before), true) : pack(0, width, false);
  },
};
