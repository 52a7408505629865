// A fetched body as text a model reads well: HTML as markdown (node-html-markdown, loaded on the first
// page, see docs/dependencies.md) without scripts, styles or the site's navigation; PDF as text through
// poppler's `pdftotext` when it is installed; text, JSON and XML as they are. Anything else is refused
// with a pointer to fetch.raw.

import { execFile } from "node:child_process";
import { withoutSecrets } from "../config/secret-env.js";
import { formatBytes, WebError } from "./http.js";

interface Readable {
  text: string;
  /** "html", "pdf", "text". */
  kind: string;
  title?: string;
}

/** Elements whose content is never text a reader wants. */
const DROPPED = [
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "canvas",
  "iframe",
  "object",
  "embed",
  "nav",
  "footer",
  "aside",
  "form",
  "button",
  "select",
  "head",
];

export async function readable(body: Buffer, contentType: string, url: string): Promise<Readable> {
  const mime = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  const kind = kindOf(mime, body);
  if (kind === "pdf") return { kind, text: await pdfText(body, url) };
  if (kind === "html") {
    const html = decode(body, contentType, true);
    return { kind, ...(await htmlToMarkdown(absoluteLinks(html, url))) };
  }
  if (kind === "text") return { kind, text: decode(body, contentType, false) };
  throw new WebError(
    `${url} is ${mime || "binary data"} (${formatBytes(body.length)}), not text; fetch.raw(url) returns its bytes`,
  );
}

function kindOf(mime: string, body: Buffer): "html" | "pdf" | "text" | "binary" {
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (mime === "application/pdf") return "pdf";
  if (
    mime.startsWith("text/") ||
    /^application\/([\w.+-]+\+)?(json|xml|javascript|x-yaml|yaml|toml|x-sh|sql|x-ndjson)$/.test(mime)
  )
    return "text";
  // No type, or a generic one: look at the bytes.
  if (mime === "" || mime === "application/octet-stream" || mime === "binary/octet-stream") {
    const head = body.subarray(0, 1024).toString("latin1");
    if (head.startsWith("%PDF-")) return "pdf";
    if (/^\s*(<!doctype html|<html[\s>])/i.test(head)) return "html";
    if (!body.subarray(0, 8192).includes(0)) return "text";
  }
  return "binary";
}

/** The charset of the Content-Type, else of an HTML <meta>, else UTF-8. */
function decode(body: Buffer, contentType: string, html: boolean): string {
  let label = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  if (!label && html) {
    const head = body.subarray(0, 4096).toString("latin1");
    label = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  }
  try {
    return new TextDecoder(label ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

type Translator = { translate(html: string): string };
let translator: Promise<Translator> | undefined;

async function htmlToMarkdown(html: string): Promise<{ text: string; title?: string }> {
  translator ??= import("node-html-markdown").then((mod) => {
    // A CommonJS package: bundled, its exports arrive as the namespace's default.
    const { NodeHtmlMarkdown } = mod.default?.NodeHtmlMarkdown ? mod.default : mod;
    return new NodeHtmlMarkdown({ ignore: DROPPED, maxConsecutiveNewlines: 2, useInlineLinks: true });
  });
  const t = await translator;
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const cleanTitle = title ? unescapeEntities(title).replace(/\s+/g, " ").trim() : undefined;
  // A page's own main content when it marks one (<main>, or a single <article>); the whole body else.
  const main = mainContent(html);
  const text = t.translate(main ?? html).trim();
  return { text, title: cleanTitle || undefined };
}

/** Links made absolute against the page's URL, so the model can fetch() them as they are written. */
function absoluteLinks(html: string, base: string): string {
  return html.replace(/\b(href|src)\s*=\s*(["'])([^"']*)\2/gi, (m, attr: string, q: string, link: string) => {
    if (/^(#|[a-z][a-z0-9+.-]*:)/i.test(link)) return m;
    try {
      return `${attr}=${q}${new URL(link.replace(/&amp;/g, "&"), base).href}${q}`;
    } catch {
      return m;
    }
  });
}

function mainContent(html: string): string | undefined {
  const mains = html.match(/<main[\s>][\s\S]*?<\/main>/gi);
  if (mains?.length === 1) return mains[0];
  const articles = html.match(/<article[\s>][\s\S]*?<\/article>/gi);
  if (articles?.length === 1) return articles[0];
  return undefined;
}

function unescapeEntities(text: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
      return Number.isFinite(code) ? String.fromCodePoint(code) : m;
    }
    return named[e.toLowerCase()] ?? m;
  });
}

/** PDF text through `pdftotext` (poppler-utils): reading order kept, pages separated by form feeds. */
function pdfText(body: Buffer, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "pdftotext",
      ["-enc", "UTF-8", "-", "-"],
      // No keys: a cell could read them in pdftotext's /proc/PID/environ while it runs.
      { maxBuffer: 64 * 1024 * 1024, timeout: 60_000, env: withoutSecrets(process.env) },
      (error, stdout) => {
        if (!error) return resolve(stdout.replace(/\f/g, "\n\n"));
        if ((error as NodeJS.ErrnoException).code === "ENOENT")
          return reject(
            new WebError(
              `${url} is a PDF (${formatBytes(body.length)}); turning PDFs into text needs pdftotext (poppler-utils) on the host's PATH. fetch.raw(url) returns its bytes`,
            ),
          );
        reject(new WebError(`${url}: pdftotext could not read this PDF (${error.message.split("\n")[0]})`));
      },
    );
    child.stdin?.on("error", () => {});
    child.stdin?.end(body);
  });
}
