// Images a person sends with a message (the UI's ctrl+v, a dropped image file): saved beside the journal
// (`inputs/image-N.EXT`) when they arrive, then sent as image parts of the next user message, the way
// look() sends a cell's images; the `user` event names the files, so a resume sends them again.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirs } from "../../config/dirs.js";
import type { ContentPart, ImageMimeType } from "../../llm/types.js";

/** An image as a front end sends it: base64 bytes, their type, and the name it showed. */
export interface UserImage {
  name: string;
  mimeType: ImageMimeType;
  data: string;
}

/** A saved image waiting for the message it came with. */
export interface StagedImage {
  /** Relative to the agent's folder, as the `user` event names it. */
  file: string;
  part: Extract<ContentPart, { type: "image" }>;
}

/** Saved images are named by their type (session/image-files.ts reads the type back from the name). */
export const IMAGE_EXTENSIONS: Record<ImageMimeType, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

export class PendingImages {
  private staged: StagedImage[] = [];
  private count = 0;

  constructor(private readonly dir: () => string) {}

  /** Saves the images now (user-only files); they go with the next user message. */
  queue(images: readonly UserImage[]): void {
    const folder = join(this.dir(), "inputs");
    makeDirs(folder, 0o700);
    for (const image of images) {
      const file = join(
        "inputs",
        `image-${Date.now().toString(36)}-${++this.count}.${IMAGE_EXTENSIONS[image.mimeType]}`,
      );
      writeFileSync(join(this.dir(), file), Buffer.from(image.data, "base64"), { mode: 0o600 });
      this.staged.push({ file, part: { type: "image", mimeType: image.mimeType, data: image.data } });
    }
  }

  take(): StagedImage[] {
    return this.staged.splice(0);
  }
}
