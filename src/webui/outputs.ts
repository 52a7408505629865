// The one kind of session file the page shows: the images a session's cells wrote to its outputs/ folder
// (cell_output's imageFiles). Only a plain name there with an image extension, never through a link (the
// kernels write that folder too, and a link could point anywhere), and never SVG (a document that runs
// scripts when opened on its own).
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { IMAGE_TYPES } from "../session/image-files.js";
import { sessionDir } from "../session/index.js";

const MAX_IMAGE_BYTES = 32 * 1024 * 1024;

export function sendOutputFile(
  res: ServerResponse,
  home: string,
  id: string,
  name: string,
  headers: Record<string, string>,
): void {
  const ext = /^[\w.-]+\.(\w+)$/.exec(name)?.[1]?.toLowerCase();
  const type = ext && !name.startsWith(".") ? IMAGE_TYPES.get(ext) : undefined;
  const notFound = () => {
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8", ...headers });
    res.end("not found\n");
  };
  if (!type) {
    notFound();
    return;
  }
  let fd: number;
  try {
    fd = openSync(join(sessionDir(home, id), "outputs", name), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    notFound();
    return;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_IMAGE_BYTES) {
      notFound();
      return;
    }
    const body = Buffer.alloc(stat.size);
    let at = 0;
    while (at < body.length) {
      const read = readSync(fd, body, at, body.length - at, at);
      if (read === 0) break;
      at += read;
    }
    res.writeHead(200, { "content-type": type, ...headers });
    res.end(body.subarray(0, at));
  } finally {
    closeSync(fd);
  }
}
