import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { makeDirs } from "../config/dirs.js";
import { absoluteImages, type ExportAsset, imagesBeside } from "./export-md.js";
import { JOURNAL_FILE } from "./journal.js";
import { buildNotebook } from "./notebook.js";
import { readJournal } from "./read.js";
import { renderHtml } from "./render-html.js";
import { type MarkdownImage, renderMarkdown } from "./render-md.js";
import { buildTranscript } from "./transcript.js";

export const EXPORT_FORMATS = ["md", "jsonl", "ipynb", "html"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * The session in `dir` as one document, for stdout (a Markdown export links its images where they are;
 * writeExport copies them beside the file). Throws JournalFormatError for a damaged journal.
 */
export async function exportSession(dir: string, format: ExportFormat): Promise<string> {
  return render(dir, format, absoluteImages(dir));
}

/**
 * Writes the session in `dir` to the file `output` (a Markdown export with its images in `NAME_files/`
 * beside it, see export-md.ts). Returns the paths written, the document first.
 */
export async function writeExport(dir: string, format: ExportFormat, output: string): Promise<string[]> {
  const path = resolve(output);
  const assets: ExportAsset[] = [];
  const text = await render(dir, format, imagesBeside(dir, path, assets));
  for (const asset of assets) {
    makeDirs(dirname(asset.path));
    writeFileSync(asset.path, asset.data);
  }
  writeFileSync(path, text);
  return [path, ...assets.map((a) => a.path)];
}

async function render(dir: string, format: ExportFormat, image: MarkdownImage): Promise<string> {
  const path = join(dir, JOURNAL_FILE);
  const journal = readJournal(path);
  const blocks = () => buildTranscript(journal.header, journal.events);
  switch (format) {
    case "jsonl":
      // Byte for byte, minus a half-written last line, so the export always parses.
      return readFileSync(path).subarray(0, journal.endOffset).toString("utf8");
    case "md":
      return renderMarkdown(blocks(), image);
    case "html": {
      // Lazy: the markdown parser is only loaded for html (the bundler makes this its own chunk).
      const { markdownToHtml } = await import("./markdown-html.js");
      return renderHtml(blocks(), dir, markdownToHtml);
    }
    case "ipynb":
      return `${JSON.stringify(buildNotebook(dir, journal.header, blocks()), null, 1)}\n`;
    default:
      throw new Error(`Unknown export format: ${String(format)} (use ${EXPORT_FORMATS.join(", ")})`);
  }
}
