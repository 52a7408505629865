// The session as an nbformat 4.5 notebook, so the agent's work can be reopened and re-run in Jupyter.
import { imageTypeOfFile } from "./image-files.js";
import { renderBlockMarkdown } from "./render-md.js";
import { readSessionFile } from "./session-files.js";
import type { Block, CellResult } from "./transcript.js";
import type { JournalHeader } from "./types.js";

type Output =
  | { output_type: "stream"; name: "stdout" | "stderr"; text: string[] }
  | { output_type: "error"; ename: string; evalue: string; traceback: string[] }
  | { output_type: "display_data"; data: Record<string, string | string[]>; metadata: Record<string, never> };

type NotebookCell =
  | { cell_type: "markdown"; id: string; metadata: Record<string, never>; source: string[] }
  | {
      cell_type: "code";
      id: string;
      metadata: Record<string, never>;
      execution_count: number | null;
      source: string[];
      outputs: Output[];
    };

interface Notebook {
  nbformat: 4;
  nbformat_minor: 5;
  metadata: Record<string, unknown>;
  cells: NotebookCell[];
}

/** nbformat's multiline strings: one entry per line, each keeping its "\n". */
function toLines(text: string): string[] {
  const parts = text.split("\n");
  const lines = parts.map((p, i) => (i < parts.length - 1 ? `${p}\n` : p));
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The model saw a capped output; the notebook gets all of it when it was written aside. */
function fullOutput(dir: string, r: CellResult): { text: string; missing: boolean } {
  if (!r.truncated || !r.fullOutputFile) return { text: r.output, missing: false };
  const data = readSessionFile(dir, r.fullOutputFile);
  return data ? { text: data.toString("utf8"), missing: false } : { text: r.output, missing: true };
}

function cellOutputs(dir: string, r: CellResult): Output[] {
  const outputs: Output[] = [];
  const { text, missing } = fullOutput(dir, r);
  if (r.status === "error") {
    // The kernel's output for a failed cell ends with the traceback; Jupyter joins traceback entries with "\n".
    const traceback = text.split("\n");
    if (traceback.at(-1) === "") traceback.pop();
    outputs.push({
      output_type: "error",
      ename: r.error?.name ?? "Error",
      evalue: r.error?.value ?? "",
      traceback,
    });
  } else if (text) {
    outputs.push({ output_type: "stream", name: "stdout", text: toLines(text) });
  }
  const remarks: string[] = [];
  if (r.status === "timeout") remarks.push("[relm] The cell timed out.");
  if (r.status === "crashed") remarks.push("[relm] The kernel crashed during this cell.");
  if (missing) remarks.push(`[relm] Output was truncated and ${r.fullOutputFile} is missing.`);
  if (r.note) remarks.push(`[relm] ${r.note}`);
  if (remarks.length > 0) {
    outputs.push({ output_type: "stream", name: "stderr", text: toLines(`${remarks.join("\n")}\n`) });
  }
  for (const file of r.imageFiles) {
    const data = readSessionFile(dir, file);
    if (!data) {
      outputs.push({ output_type: "stream", name: "stderr", text: [`[relm] Image missing: ${file}\n`] });
      continue;
    }
    outputs.push({
      output_type: "display_data",
      data: { [imageTypeOfFile(file)]: data.toString("base64"), "text/plain": [`<image ${file}>`] },
      metadata: {},
    });
  }
  return outputs;
}

/** nbformat wants a non-negative integer or null (never run). */
function executionCount(r: CellResult | undefined): number | null {
  return r && Number.isInteger(r.executionCount) && r.executionCount >= 0 ? r.executionCount : null;
}

export function buildNotebook(dir: string, header: JournalHeader, blocks: Block[]): Notebook {
  const cells: NotebookCell[] = [];
  let markdown: string[] = [];
  // Cell ids must be unique and match [a-zA-Z0-9-_]{1,64}; a counter in document order is stable per export.
  const nextId = () => `relm-${cells.length + 1}`;
  const flush = () => {
    if (markdown.length === 0) return;
    cells.push({ cell_type: "markdown", id: nextId(), metadata: {}, source: toLines(markdown.join("\n\n")) });
    markdown = [];
  };

  for (const block of blocks) {
    if (block.kind !== "cell") {
      // A heading starts a new markdown cell, so each message stays one cell between the code cells.
      if (block.kind === "heading") flush();
      markdown.push(renderBlockMarkdown(block));
      continue;
    }
    flush();
    cells.push({
      cell_type: "code",
      id: nextId(),
      metadata: {},
      execution_count: executionCount(block.result),
      source: toLines(block.code),
      outputs: block.result ? cellOutputs(dir, block.result) : [],
    });
  }
  flush();

  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: "python3", display_name: "Python 3", language: "python" },
      language_info: { name: "python" },
      relm: { session: header.id, created: header.created, model: header.model, provider: header.provider },
    },
    cells,
  };
}
