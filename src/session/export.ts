import { readFileSync } from "node:fs";
import { join } from "node:path";
import { JOURNAL_FILE } from "./journal.js";
import { buildNotebook } from "./notebook.js";
import { readJournal } from "./read.js";
import { renderHtml } from "./render-html.js";
import { renderMarkdown } from "./render-md.js";
import { buildTranscript } from "./transcript.js";

export const EXPORT_FORMATS = ["md", "jsonl", "ipynb", "html"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The session in `dir` as one document. Throws JournalFormatError for a damaged journal. */
export async function exportSession(dir: string, format: ExportFormat): Promise<string> {
  const path = join(dir, JOURNAL_FILE);
  const journal = readJournal(path);
  switch (format) {
    case "jsonl":
      // Byte for byte, minus a half-written last line, so the export always parses.
      return readFileSync(path).subarray(0, journal.endOffset).toString("utf8");
    case "md":
      return renderMarkdown(buildTranscript(journal.header, journal.events));
    case "html": {
      // Lazy: the markdown parser is only loaded for html (the bundler makes this its own chunk).
      const { markdownToHtml } = await import("./markdown-html.js");
      return renderHtml(buildTranscript(journal.header, journal.events), dir, markdownToHtml);
    }
    case "ipynb": {
      const blocks = buildTranscript(journal.header, journal.events);
      return `${JSON.stringify(buildNotebook(dir, journal.header, blocks), null, 1)}\n`;
    }
    default:
      throw new Error(`Unknown export format: ${String(format)} (use ${EXPORT_FORMATS.join(", ")})`);
  }
}
