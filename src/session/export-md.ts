// A Markdown export's images. The journal names them relative to the session folder
// (`outputs/cell-4-0.png`), which means nothing where the document is read. Written to a file, the
// export copies them beside it, into `NAME_files/` (as Jupyter's nbconvert does), and links them from
// there, so the document and its folder can be moved or shared together. Written to stdout, where it
// goes is unknown: the links are the images' absolute paths in the session folder.

import { basename, dirname, extname, join, resolve } from "node:path";
import { imageLink, type MarkdownImage } from "./render-md.js";
import { readSessionFile } from "./session-files.js";

/** A file the export needs written beside the document. */
export interface ExportAsset {
  path: string;
  data: Buffer;
}

/** Links to the images where they are, in the session folder `dir` (absolute paths). */
export function absoluteImages(dir: string): MarkdownImage {
  return (file) => imageLink(join(resolve(dir), file));
}

/**
 * Links for a document written to `output`: each image of the session in `dir` copied into
 * `NAME_files/` beside it (added to `assets` as it is linked), linked relative to the document.
 */
export function imagesBeside(dir: string, output: string, assets: ExportAsset[]): MarkdownImage {
  const folder = `${basename(output, extname(output))}_files`;
  const named = new Map<string, string>();
  return (file) => {
    let name = named.get(file);
    if (name === undefined) {
      // readSessionFile never reads outside the session folder, whatever the journal says.
      const data = readSessionFile(dir, file);
      if (!data) return `> image missing: ${file}`;
      name = freeName(basename(file), new Set(named.values()));
      named.set(file, name);
      assets.push({ path: join(dirname(output), folder, name), data });
    }
    return imageLink(`${folder}/${name}`);
  };
}

/** `name`, or `name-2.ext`, `name-3.ext`… when it is taken. */
function freeName(name: string, taken: Set<string>): string {
  if (!taken.has(name)) return name;
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 2; ; i++) if (!taken.has(`${stem}-${i}${ext}`)) return `${stem}-${i}${ext}`;
}
