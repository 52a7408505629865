import { imageTypeOfFile } from "./image-files.js";
import { readSessionFile } from "./session-files.js";
import { type Block, cellNotes } from "./transcript.js";

const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
pre { background: #f6f8fa; padding: .75rem; overflow-x: auto; border-radius: 4px; }
pre.output { background: #fff; border: 1px solid #ddd; }
.text { white-space: pre-wrap; }
.markdown table { border-collapse: collapse; }
.markdown th, .markdown td { border: 1px solid #ddd; padding: .25rem .6rem; }
.markdown blockquote { color: #555; border-left: 3px solid #ccc; margin-left: 0; padding-left: .75rem; }
.markdown code { background: #f6f8fa; padding: .1rem .25rem; border-radius: 3px; }
.markdown pre code { padding: 0; }
.note { color: #555; border-left: 3px solid #ccc; padding-left: .75rem; white-space: pre-wrap; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2rem 1rem; }
dt { font-weight: 600; }
img { max-width: 100%; }
`;

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

function note(text: string): string {
  return `<div class="note">${escapeHtml(text)}</div>`;
}

// Images are inlined as data: URLs so the page stays one self-contained file.
function image(dir: string, path: string): string {
  const data = readSessionFile(dir, path);
  if (!data) return note(`Image missing: ${path}`);
  return `<img alt="${escapeHtml(path)}" src="data:${imageTypeOfFile(path)};base64,${data.toString("base64")}">`;
}

/** Markdown text to an HTML fragment that escapes any HTML inside it (see markdown-html.ts). */
type MarkdownToHtml = (text: string) => string;

function renderBlock(block: Block, dir: string, markdown: MarkdownToHtml): string {
  switch (block.kind) {
    case "title":
      return `<h1>${escapeHtml(block.text)}</h1>`;
    case "meta":
      return `<dl>${block.items.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join("")}</dl>`;
    case "heading":
      return `<h2>${escapeHtml(block.text)}</h2>`;
    case "text":
      // The person's own words stay as typed; the model writes markdown (rendered, its HTML escaped).
      if (block.from === "user") return `<div class="text">${escapeHtml(block.text.trim())}</div>`;
      return `<div class="markdown">${markdown(block.text.trim())}</div>`;
    case "note":
      return note(block.text);
    case "cell": {
      const parts = [`<pre class="code"><code>${escapeHtml(block.code)}</code></pre>`];
      const r = block.result;
      if (r) {
        if (r.output) parts.push(`<pre class="output">${escapeHtml(r.output)}</pre>`);
        const notes = cellNotes(r);
        if (notes.length > 0) parts.push(note(notes.join("\n")));
        for (const file of r.imageFiles) parts.push(image(dir, file));
      }
      return parts.join("\n");
    }
  }
}

export function renderHtml(blocks: Block[], dir: string, markdown: MarkdownToHtml): string {
  const first = blocks[0];
  const title = first?.kind === "title" ? first.text : "relm session";
  const body = blocks.map((b) => renderBlock(b, dir, markdown)).join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}
