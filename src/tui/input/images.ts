// Images into the prompt: ctrl+v reads an image from the clipboard (wl-paste on Wayland, else xclip), and
// a pasted or dropped path to a .png/.jpg/.gif/.webp file becomes one too. The input holds a marker,
// `[image #1 name.png]`; on send the images whose markers are still there go with the message as image
// parts (the host sends them the way look() sends a cell's, to models that take images).

import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { basename, isAbsolute, resolve } from "node:path";
import type { UserImage } from "../../agent/core/user-images.js";
import { MAX_IMAGE_BYTES } from "../../host/protocol.js";
import { IMAGE_TYPES } from "../../session/image-files.js";

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MARKER = /\[image #(\d+) [^\]\n]*\]/g;

/** The images the input holds, by the number in their marker. */
export class ImageAttachments {
  private readonly held = new Map<number, UserImage>();
  private counter = 0;

  /** Keeps the image; returns the marker to put in the input. */
  hold(image: UserImage): string {
    this.counter += 1;
    this.held.set(this.counter, image);
    return `[image #${this.counter} ${image.name}]`;
  }

  /**
   * The images whose markers are in `text`, in order (each once). Kept until clear(): a message the
   * UI holds back (the agent is working) goes later with its images.
   */
  inText(text: string): UserImage[] {
    const images: UserImage[] = [];
    const seen = new Set<number>();
    for (const m of text.matchAll(MARKER)) {
      const n = Number(m[1]);
      const image = this.held.get(n);
      if (image && !seen.has(n)) images.push(image);
      seen.add(n);
    }
    return images;
  }

  /**
   * A message's text with its images held again under new markers (a rewound message back in the
   * input): the distinct markers in `text`, in order, stand for `images` in that order (as inText sent
   * them); markers beyond them stay as text.
   */
  holdAgain(text: string, images: readonly UserImage[]): string {
    const renamed = new Map<string, string>();
    return text.replace(MARKER, (marker, n: string) => {
      const again = renamed.get(n);
      if (again) return again;
      const image = images[renamed.size];
      if (!image) return marker;
      // The name it showed before (the saved file's name is relm's, not the person's).
      const name = /^\[image #\d+ (.*)\]$/.exec(marker)?.[1] || image.name;
      const fresh = this.hold({ ...image, name });
      renamed.set(n, fresh);
      return fresh;
    });
  }

  /** The message went: its images with it, the others (markers deleted before sending) with nothing. */
  clear(): void {
    this.held.clear();
  }

  reset(): void {
    this.held.clear();
    this.counter = 0;
  }
}

/**
 * The image file a paste names (a terminal pastes a dropped file as its path: maybe quoted, with
 * backslash-escaped spaces, or as a file:// URL); undefined when the paste is no image path. An image
 * that cannot be read or is too large is an error to say.
 */
export function imageFromPath(pasted: string, cwd: string): UserImage | { error: string } | undefined {
  let path = pasted.trim();
  if (path.includes("\n") || path === "") return undefined;
  if (/^(['"]).*\1$/.test(path)) path = path.slice(1, -1);
  else path = path.replace(/\\(.)/g, "$1");
  if (path.startsWith("file://")) {
    try {
      path = decodeURIComponent(new URL(path).pathname);
    } catch {
      return undefined;
    }
  }
  const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  const mimeType = IMAGE_TYPES.get(ext);
  if (!mimeType || path.lastIndexOf(".") < 0) return undefined;
  const file = isAbsolute(path) ? path : resolve(cwd, path);
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return undefined;
    size = stat.size;
  } catch {
    return undefined; // text that looks like a path to nothing stays text
  }
  if (size > MAX_IMAGE_BYTES) return tooLarge(basename(file), size);
  try {
    return { name: basename(file), mimeType, data: readFileSync(file).toString("base64") };
  } catch (error) {
    return { error: `cannot read ${file}: ${(error as Error).message}` };
  }
}

/** Why `what` is not attached: `size` bytes is over the limit. */
function tooLarge(what: string, size: number): { error: string } {
  const n = (x: number) => x.toLocaleString("en-US");
  return { error: `${what} is ${n(size)} bytes: images go up to ${n(MAX_IMAGE_BYTES)}` };
}

/** The clipboard's image (PNG), through wl-paste on Wayland or xclip; what went wrong otherwise. */
export function clipboardImage(env: NodeJS.ProcessEnv): UserImage | { error: string } {
  const tools: [string, string[]][] = [["xclip", ["-selection", "clipboard", "-t", "image/png", "-o"]]];
  if (env.WAYLAND_DISPLAY) tools.unshift(["wl-paste", ["--no-newline", "--type", "image/png"]]);
  let tried = false;
  for (const [tool, args] of tools) {
    const run = spawnSync(tool, args, { env, maxBuffer: MAX_IMAGE_BYTES * 2, timeout: 5000 });
    if ((run.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") continue;
    tried = true;
    const out = run.stdout;
    if (run.status === 0 && out && out.length >= PNG_MAGIC.length && out.subarray(0, 8).equals(PNG_MAGIC)) {
      if (out.length > MAX_IMAGE_BYTES) return tooLarge("the clipboard's image", out.length);
      return { name: "clipboard.png", mimeType: "image/png", data: out.toString("base64") };
    }
  }
  return tried
    ? { error: "no image on the clipboard (copy one, or drop an image file into the terminal)" }
    : {
        error:
          "ctrl+v reads the clipboard's image with wl-paste (Wayland) or xclip (X11), and neither is installed; drop the image file into the terminal instead",
      };
}
