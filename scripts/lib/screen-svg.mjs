// Renders an @xterm/headless screen as an SVG "screenshot": one monospace grid with each cell's colours
// and attributes as the emulator holds them. Used by scripts/screenshots.mjs (docs/screenshots/) and by
// the UI tests' pty harness (test/support/pty.ts), so a failing test can save exactly what it saw.
// Plain JS with no dependencies: the emulator is read through its public buffer API only.

/** A dark theme; the 16 ANSI colours are xterm.js's defaults, so the pictures match what tests read. */
export const DEFAULT_THEME = {
  foreground: "#d4d4d4",
  background: "#1e1e1e",
  cursor: "#d4d4d4",
  ansi: [
    "#2e3436",
    "#cc0000",
    "#4e9a06",
    "#c4a000",
    "#3465a4",
    "#75507b",
    "#06989a",
    "#d3d7cf",
    "#555753",
    "#ef2929",
    "#8ae234",
    "#fce94f",
    "#729fcf",
    "#ad7fa8",
    "#34e2e2",
    "#eeeeec",
  ],
};

/** A light terminal (Solarized Light's background and text) for the light theme's pictures. */
export const LIGHT_THEME = {
  ...DEFAULT_THEME,
  foreground: "#333333",
  background: "#fdf6e3",
  cursor: "#333333",
};

// xterm.js colour modes as returned by IBufferCell.getFgColorMode()/getBgColorMode().
const MODE_DEFAULT = 0;
const MODE_P16 = 16777216;
const MODE_P256 = 33554432;
const MODE_RGB = 50331648;

const hex2 = (n) => n.toString(16).padStart(2, "0");

/** The colour of palette entry 0–255 (16 theme colours, the 6×6×6 cube, then 24 greys). */
export function paletteHex(index, theme = DEFAULT_THEME) {
  if (index < 16) return theme.ansi[index];
  if (index < 232) {
    const levels = [0, 95, 135, 175, 215, 255];
    const i = index - 16;
    return `#${hex2(levels[Math.floor(i / 36)])}${hex2(levels[Math.floor(i / 6) % 6])}${hex2(levels[i % 6])}`;
  }
  const grey = 8 + (index - 232) * 10;
  return `#${hex2(grey)}${hex2(grey)}${hex2(grey)}`;
}

/**
 * A cell's colour as { mode, value, hex }: mode "default" (hex undefined: the theme decides), "palette"
 * (value 0–255) or "rgb" (value 0xRRGGBB).
 */
export function cellColor(cell, which, theme = DEFAULT_THEME) {
  const mode = which === "fg" ? cell.getFgColorMode() : cell.getBgColorMode();
  const value = which === "fg" ? cell.getFgColor() : cell.getBgColor();
  if (mode === MODE_P16 || mode === MODE_P256)
    return { mode: "palette", value, hex: paletteHex(value, theme) };
  if (mode === MODE_RGB) return { mode: "rgb", value, hex: `#${value.toString(16).padStart(6, "0")}` };
  if (mode !== MODE_DEFAULT) throw new Error(`unknown colour mode ${mode}`);
  return { mode: "default", value: -1, hex: undefined };
}

/**
 * Box-drawing characters drawn as lines from the cell's centre to its edges (left, right, up, down),
 * as terminals draw them: a glyph is shorter than the line height, so tables and frames drawn as text
 * would have gaps between rows. Characters not listed (dashed, heavy, double) stay text.
 */
const BOX_ARMS = {
  "─": "lr",
  "│": "ud",
  "┌": "rd",
  "┐": "ld",
  "└": "ru",
  "┘": "lu",
  "├": "udr",
  "┤": "udl",
  "┬": "lrd",
  "┴": "lru",
  "┼": "lrud",
  "╭": "rd",
  "╮": "ld",
  "╰": "ru",
  "╯": "lu",
};

const ROUNDED = new Set(["╭", "╮", "╰", "╯"]);

const escapeXml = (s) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

/** What one cell looks like once inverse, bold-as-bright and the cursor are applied. */
function paint(cell, theme, isCursor) {
  const fg = cellColor(cell, "fg", theme);
  const bg = cellColor(cell, "bg", theme);
  // Like xterm.js (drawBoldTextInBrightColors): bold text in one of the first 8 colours uses the bright one.
  let fgHex = fg.hex ?? theme.foreground;
  if (cell.isBold() && fg.mode === "palette" && fg.value < 8) fgHex = theme.ansi[fg.value + 8];
  let bgHex = bg.hex;
  if (cell.isInverse()) [fgHex, bgHex] = [bgHex ?? theme.background, fgHex];
  // A block cursor, as most terminals draw it: the cell in the background colour on the cursor colour.
  if (isCursor) [fgHex, bgHex] = [theme.background, theme.cursor];
  return {
    fg: fgHex,
    bg: bgHex,
    bold: Boolean(cell.isBold()),
    italic: Boolean(cell.isItalic()),
    dim: Boolean(cell.isDim()),
    underline: Boolean(cell.isUnderline()),
    strike: Boolean(cell.isStrikethrough()),
    invisible: Boolean(cell.isInvisible()),
  };
}

const sameText = (a, b) =>
  a.fg === b.fg &&
  a.bold === b.bold &&
  a.italic === b.italic &&
  a.dim === b.dim &&
  a.underline === b.underline &&
  a.strike === b.strike &&
  a.invisible === b.invisible;

/**
 * The visible screen of `term` (an @xterm/headless Terminal) as an SVG document.
 * options: cursor — { x, y } to draw a block cursor there, or null/false for none (default: the
 * emulator's cursor position; pass the harness's visibility so a hidden cursor is not drawn);
 * title — text for a window title bar (omit for no bar); fontSize (px, default 14); theme.
 */
export function screenToSvg(term, options = {}) {
  const theme = options.theme ?? DEFAULT_THEME;
  const fontSize = options.fontSize ?? 14;
  const cw = Math.round(fontSize * 0.6 * 100) / 100;
  const ch = Math.round(fontSize * 1.3);
  const pad = 12;
  const bar = options.title === undefined ? 0 : 28;
  const buffer = term.buffer.active;
  const cursor =
    options.cursor === undefined ? { x: buffer.cursorX, y: buffer.cursorY } : options.cursor || undefined;
  const width = Math.ceil(term.cols * cw + pad * 2);
  const height = Math.ceil(term.rows * ch + pad * 2 + bar);
  const top = pad + bar;
  const baseline = Math.round(ch * 0.75);
  const out = [];
  out.push(
    // xml:space="preserve" keeps runs of spaces (renderers that ignore CSS white-space still honour it).
    `<svg xmlns="http://www.w3.org/2000/svg" xml:space="preserve" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<style>text{font-family:"DejaVu Sans Mono","SFMono-Regular",Menlo,Consolas,"Liberation Mono",monospace;` +
      `font-size:${fontSize}px;white-space:pre}` +
      `.b{font-weight:bold}.i{font-style:italic}.u{text-decoration:underline}.s{text-decoration:line-through}` +
      `.u.s{text-decoration:underline line-through}</style>`,
    `<rect width="${width}" height="${height}" rx="8" fill="${theme.background}"/>`,
  );
  if (bar) {
    out.push(
      ...["#ff5f57", "#febc2e", "#28c840"].map(
        (c, i) => `<circle cx="${20 + i * 18}" cy="15" r="6" fill="${c}"/>`,
      ),
      `<text x="${width / 2}" y="15" text-anchor="middle" fill="#8a8a8a">${escapeXml(options.title)}</text>`,
    );
  }
  const backgrounds = [];
  const texts = [];
  const boxes = [];
  const stroke = Math.max(1, Math.round(fontSize / 14));
  const cell = buffer.getNullCell();
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    if (!line) continue;
    const cy = top + y * ch;
    let bgRun; // { x, cells, colour }
    let textRun; // { x, cells, chars, look }
    const flushBg = () => {
      if (bgRun?.colour)
        backgrounds.push(
          `<rect x="${(pad + bgRun.x * cw).toFixed(2)}" y="${cy}" width="${(bgRun.cells * cw).toFixed(2)}" height="${ch}" fill="${bgRun.colour}"/>`,
        );
      bgRun = undefined;
    };
    const flushText = () => {
      const lined = textRun?.look.underline || textRun?.look.strike;
      const chars = (lined ? textRun?.chars : textRun?.chars.trimEnd()) ?? "";
      if (textRun && !textRun.look.invisible && chars !== "") {
        const look = textRun.look;
        // Trailing blanks (not underlined ones) are dropped; the run is stretched over the cells it fills.
        const cells = textRun.cells - (textRun.chars.length - chars.length);
        const cls = [look.bold && "b", look.italic && "i", look.underline && "u", look.strike && "s"].filter(
          Boolean,
        );
        texts.push(
          `<text x="${(pad + textRun.x * cw).toFixed(2)}" y="${cy + baseline}" fill="${look.fg}"` +
            `${cls.length ? ` class="${cls.join(" ")}"` : ""}${look.dim ? ' fill-opacity="0.5"' : ""}` +
            ` textLength="${(cells * cw).toFixed(2)}" lengthAdjust="spacingAndGlyphs">${escapeXml(chars)}</text>`,
        );
      }
      textRun = undefined;
    };
    for (let x = 0; x < term.cols; x++) {
      line.getCell(x, cell);
      const w = cell.getWidth();
      if (w === 0) continue; // the right half of a wide character, drawn with its left half
      const look = paint(cell, theme, cursor !== undefined && cursor.x === x && cursor.y === y);
      if (bgRun && bgRun.colour === look.bg && bgRun.x + bgRun.cells === x) bgRun.cells += w;
      else {
        flushBg();
        bgRun = { x, cells: w, colour: look.bg };
      }
      const chars = cell.getChars() || " ";
      const arms = BOX_ARMS[chars];
      if (arms && !look.invisible) {
        flushText();
        const mx = pad + x * cw + cw / 2;
        const my = cy + ch / 2;
        const ends = { l: [pad + x * cw, my], r: [pad + (x + 1) * cw, my], u: [mx, cy], d: [mx, cy + ch] };
        const at = ([px, py]) => `${px.toFixed(2)} ${py}`;
        const centre = at([mx, my]);
        // Rounded corners (╭╮╰╯) bend through the centre; the others are straight arms.
        const rounded = ROUNDED.has(chars);
        const d = rounded
          ? `M${at(ends[arms[0]])}Q${centre} ${at(ends[arms[1]])}`
          : [...arms].map((a) => `M${centre}L${at(ends[a])}`).join("");
        // Straight lines crisp, so neighbouring cells join without anti-aliased seams.
        boxes.push(
          `<path d="${d}" fill="none" stroke="${look.fg}" stroke-width="${stroke}"${rounded ? "" : ' shape-rendering="crispEdges"'}${look.dim ? ' stroke-opacity="0.5"' : ""}/>`,
        );
        continue;
      }
      // Wide characters get a text element of their own, so stretching a run never skews the grid.
      if (w === 1 && textRun && textRun.wide === false && sameText(textRun.look, look)) {
        textRun.chars += chars;
        textRun.cells += 1;
      } else {
        flushText();
        textRun = { x, cells: w, chars, look, wide: w > 1 };
      }
    }
    flushBg();
    flushText();
  }
  out.push(...backgrounds, ...boxes, ...texts, "</svg>");
  return `${out.join("\n")}\n`;
}
