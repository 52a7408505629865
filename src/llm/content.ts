// Content helpers shared by the wire formats: image sizes and the text that stands in for an image.

import type { ContentPart } from "./types.js";

type ImagePart = Extract<ContentPart, { type: "image" }>;

export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function imageLabel(image: ImagePart): string {
  const kb = Math.max(1, Math.round(base64Bytes(image.data) / 1024));
  return `${image.mimeType}, ${kb} KB`;
}

const NO_IMAGES = "this model does not take images";

export function imagePlaceholder(image: ImagePart, note: string = NO_IMAGES): string {
  return `[${imageLabel(image)}: ${note}]`;
}

export function dataUrl(image: ImagePart): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/** Text parts joined; images replaced by placeholders carrying `note`. */
export function flattenToText(parts: readonly ContentPart[], note: string = NO_IMAGES): string {
  return parts.map((p) => (p.type === "text" ? p.text : imagePlaceholder(p, note))).join("\n");
}
