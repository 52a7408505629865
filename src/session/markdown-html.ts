// The model's markdown as HTML for the html export, with the terminal UI's rules (pi-tui's Markdown
// component also parses with marked: GFM tables, fenced code, lists, emphasis, strict ~~strikethrough~~,
// single newlines kept).
// The model's text is untrusted: raw HTML is shown as text, links may only point to http(s), mailto or
// a relative path, and images become links so the exported page never fetches anything when opened.
// Loaded lazily by export.ts (marked is only needed for html).
import { Marked, type Tokens } from "marked";
import { escapeHtml } from "./render-html.js";
import { strictStrikethrough } from "./strikethrough.js";

/** A URL a reader may follow: http(s), mailto, or one without a scheme (relative, #anchor). */
function safeHref(href: string): boolean {
  // Browsers drop control characters and whitespace inside a scheme ("java\tscript:"); so do we.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
  const compact = href.replace(/[\u0000-\u0020\u007f]/g, "");
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(compact);
  if (!scheme) return true;
  return ["http", "https", "mailto"].includes((scheme[1] ?? "").toLowerCase());
}

function anchor(href: string, title: string | null | undefined, inner: string): string {
  if (!safeHref(href)) return inner;
  const titleAttr = title ? ` title="${escapeHtml(title)}"` : "";
  return `<a href="${escapeHtml(href)}"${titleAttr} rel="noopener noreferrer">${inner}</a>`;
}

// breaks: the UI shows a single newline inside a paragraph as a line break, so the page does too.
const parser = new Marked({ gfm: true, breaks: true });
parser.use({
  tokenizer: strictStrikethrough,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    link(token: Tokens.Link): string {
      return anchor(token.href, token.title, this.parser.parseInline(token.tokens));
    },
    image(token: Tokens.Image): string {
      return anchor(token.href, token.title, `[image: ${escapeHtml(token.text || token.href)}]`);
    },
  },
});

/** `text` (markdown) as an HTML fragment; any HTML inside it comes out escaped. */
export function markdownToHtml(text: string): string {
  return parser.parse(text, { async: false });
}
