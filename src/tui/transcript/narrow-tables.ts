// Markdown tables too wide for the terminal, as records. pi-tui draws a table as a grid only when every
// column gets at least one character (4 columns of frame per column, plus 1); below that it prints the
// table's raw source wrapped to the width, so rows break mid-cell and the pipes and dashes of the source
// read as broken borders (a 5-column table in a 20-column terminal). Such a table is given to it as one
// record per row instead, each cell on its own line after its header (`**a**: 10`), records apart by a
// blank line: the same content, readable at any width. Tables that fit are left alone (the grid is better), and so are tables inside lists or
// quotes (their width is not known here).
import { Lexer, type Tokens } from "marked";

/** The widest terminal in which pi-tui gives up on a grid of `columns` columns (markdown.js renderTable). */
function tooNarrow(columns: number, width: number): boolean {
  return 3 * columns + 1 + columns > width;
}

// A delimiter row (`|---|:--:|`): a table has one right after its header. Its cells are counted before
// anything is lexed, so text without a table too wide costs one scan and no lexing (a streaming answer
// is rendered on every frame).
const DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$/gm;

function mayHaveWideTable(text: string, width: number): boolean {
  for (const match of text.matchAll(DELIMITER)) {
    const cells = match[0].trim().replace(/^\|/, "").replace(/\|$/, "").split("|").length;
    if (tooNarrow(cells, width)) return true;
  }
  return false;
}

/** `text` with every top-level table pi-tui could not draw as a grid at `width` written as records. */
export function fitTables(text: string, width: number): string {
  if (!mayHaveWideTable(text, width)) return text;
  const source = text.replace(/\r\n|\r/g, "\n");
  const tokens = new Lexer({ gfm: true }).blockTokens(source);
  if (tokens.map((t) => t.raw).join("") !== source) return text; // not the pieces of the text: left alone
  let changed = false;
  const out = tokens.map((t) => {
    if (t.type !== "table" || !tooNarrow((t as Tokens.Table).header.length, width)) return t.raw;
    changed = true;
    const trailing = /\n*$/.exec(t.raw)?.[0] ?? "";
    return `${records(t as Tokens.Table)}\n${trailing.length > 1 ? trailing.slice(1) : ""}`;
  });
  return changed ? out.join("") : text;
}

/** One paragraph per row: `header: cell` lines (hard breaks), a header left out where it is empty. */
function records(table: Tokens.Table): string {
  const headers = table.header.map((h) => h.text.trim());
  if (table.rows.length === 0) return headers.join(" · ");
  return table.rows
    .map((row) =>
      row
        .map((cell, i) => {
          const name = headers[i] ?? "";
          if (!name) return cell.text.trim();
          return `${name.includes("**") ? name : `**${name}**`}: ${cell.text.trim()}`;
        })
        .join("\\\n"),
    )
    .join("\n\n");
}
