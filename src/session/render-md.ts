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

export function renderBlockMarkdown(block: Block): string {
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
        for (const image of r.imageFiles) parts.push(`![image](${image})`);
      }
      return parts.join("\n\n");
    }
  }
}

export function renderMarkdown(blocks: Block[]): string {
  return `${blocks.map(renderBlockMarkdown).join("\n\n")}\n`;
}
