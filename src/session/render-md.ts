import { type Block, cellNotes } from "./transcript.js";

/** A fence longer than any backtick run inside, so code containing ``` cannot end its block early. */
function fenced(lang: string, text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${text.endsWith("\n") ? text : `${text}\n`}${fence}`;
}

function quote(text: string): string {
  return text
    .split("\n")
    .map((line) => (line ? `> ${line}` : ">"))
    .join("\n");
}

/** Line breaks (and spaces around them) as one space; unlike config/text.ts oneLine(), spacing stays. */
function joinLines(text: string): string {
  return text.replace(/\s*\n\s*/g, " ");
}

/**
 * How a Markdown export shows one of the session's images (`file`, relative to the session folder): a
 * link that works from where the document is read (see export.ts).
 */
export type MarkdownImage = (file: string) => string;

/** An image link to `target` (a path or URL), bracketed when it has spaces or parentheses. */
export function imageLink(target: string): string {
  return /[\s()<>]/.test(target) ? `![image](<${target}>)` : `![image](${target})`;
}

export function renderBlockMarkdown(block: Block, image: MarkdownImage = imageLink): string {
  switch (block.kind) {
    case "title":
      return `# ${joinLines(block.text)}`;
    case "meta":
      return block.items.map(([k, v]) => `- **${k}:** ${joinLines(v)}`).join("\n");
    case "heading":
      return `## ${joinLines(block.text)}`;
    case "text":
      return block.text.trim();
    case "note":
      return quote(block.text);
    case "cell": {
      const parts = [fenced("python", block.code)];
      const r = block.result;
      if (r) {
        if (r.output) parts.push(fenced("text", r.output));
        const notes = cellNotes(r);
        if (notes.length > 0) parts.push(quote(notes.join("\n")));
        for (const file of r.imageFiles) parts.push(image(file));
      }
      return parts.join("\n\n");
    }
  }
}

export function renderMarkdown(blocks: Block[], image: MarkdownImage = imageLink): string {
  return `${blocks.map((b) => renderBlockMarkdown(b, image)).join("\n\n")}\n`;
}
