// A model's answer as HTML that runs nothing, in two steps that each suffice for what the other misses:
// marked never passes the answer's own HTML through (it is shown as text), and what marked made is then
// parsed in an inert document and cut down to an allow-list of elements and attributes, links only to
// http(s) and mailto, images only this server's. The nodes are moved into the page as they are, never
// serialised and parsed again (where a sanitised string can turn into something else). The server's
// Content-Security-Policy (src/webui/server.ts) is the third line: no script but the app's own runs.
import { Marked } from "marked";
import { strictStrikethrough } from "../../session/strikethrough.js";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const marked = new Marked({
  gfm: true,
  async: false,
  tokenizer: strictStrikethrough,
  renderer: {
    // Raw HTML in the answer (a block or inline tag) is text to read, not markup.
    html: ({ text }) => escapeHtml(text),
  },
});

const ALLOWED = new Set(
  "p br hr em strong del s code pre blockquote ul ol li a img h1 h2 h3 h4 h5 h6 table thead tbody tr th td sup sub".split(
    " ",
  ),
);
/** Attributes kept, per element (everything else goes: on*, style, srcset, formaction, xlink:href…). */
const ATTRIBUTES: Record<string, string[]> = {
  a: ["href", "title"],
  img: ["src", "alt", "title"],
  code: ["class"],
  ol: ["start"],
  th: ["align"],
  td: ["align"],
};

function safeHref(value: string): boolean {
  if (value.startsWith("#")) return true;
  try {
    const url = new URL(value, window.location.href);
    return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:";
  } catch {
    return false;
  }
}

/** Only images this server serves (a session's outputs) or inline raster data. */
function safeSrc(value: string): boolean {
  if (/^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=\s]*$/i.test(value)) return true;
  try {
    const url = new URL(value, window.location.href);
    return url.origin === window.location.origin && url.pathname.startsWith("/api/sessions/");
  } catch {
    return false;
  }
}

function keepAttribute(tag: string, name: string, value: string): boolean {
  if (!ATTRIBUTES[tag]?.includes(name)) return false;
  if (name === "href") return safeHref(value);
  if (name === "src") return safeSrc(value);
  if (name === "class") return /^language-[\w+-]{1,40}$/.test(value);
  if (name === "start") return /^\d{1,9}$/.test(value);
  if (name === "align") return /^(left|right|center)$/.test(value);
  return true;
}

function clean(parent: Node): void {
  for (const node of [...parent.childNodes]) {
    if (node.nodeType === Node.TEXT_NODE) continue;
    if (node.nodeType !== Node.ELEMENT_NODE) {
      node.remove(); // comments, processing instructions
      continue;
    }
    const el = node as Element;
    const tag = el.localName;
    // An element outside the list (or from another namespace: svg, math) becomes its text.
    if (!ALLOWED.has(tag) || el.namespaceURI !== "http://www.w3.org/1999/xhtml") {
      el.replaceWith(
        document.createTextNode(tag === "img" ? (el.getAttribute("alt") ?? "") : (el.textContent ?? "")),
      );
      continue;
    }
    for (const attr of [...el.attributes])
      if (!keepAttribute(tag, attr.name, attr.value)) el.removeAttribute(attr.name);
    if (tag === "img" && !el.hasAttribute("src")) {
      el.replaceWith(document.createTextNode(el.getAttribute("alt") ?? ""));
      continue;
    }
    if (tag === "a") {
      el.setAttribute("rel", "noopener noreferrer nofollow");
      el.setAttribute("target", "_blank");
    }
    clean(el);
  }
}

/** `text` (markdown) as sanitised nodes to put into the page. */
export function markdownNodes(text: string): Node[] {
  const html = marked.parse(text) as string;
  // A document made by DOMParser is inert: no script runs, no image loads, while it is cleaned.
  const doc = new DOMParser().parseFromString(`<body>${html}</body>`, "text/html");
  clean(doc.body);
  return [...doc.body.childNodes].map((n) => document.adoptNode(n));
}
