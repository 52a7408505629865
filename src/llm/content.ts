// Content helpers shared by the wire formats: image sizes and the text that stands in for an image.

import type { ContentPart, Message, ToolResultMessage } from "./types.js";

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

/** OpenAI's formats (chat completions, Responses): how a run of tool results is written. */
interface ToolRunShapes {
  result(m: ToolResultMessage, text: string): unknown;
  text(text: string): unknown;
  image(url: string): unknown;
  userMessage(parts: unknown[]): unknown;
}

const IMAGES_FOLLOW = "attached in the next message";

/**
 * A run of tool results in OpenAI's formats. Their items must directly follow the assistant's tool
 * calls and carry text only, so the images of the whole run go into one user message after it.
 */
function toolRunItems(run: ToolResultMessage[], acceptsImages: boolean, shapes: ToolRunShapes): string[] {
  const out: string[] = [];
  const imageParts: unknown[] = [];
  for (const m of run) {
    const images = m.content.filter((p) => p.type === "image");
    const sendImages = acceptsImages && images.length > 0;
    const text = sendImages ? flattenToText(m.content, IMAGES_FOLLOW) : flattenToText(m.content);
    out.push(JSON.stringify(shapes.result(m, text)));
    if (sendImages) {
      imageParts.push(shapes.text(`Images from tool call ${m.toolCallId}:`));
      for (const image of images) imageParts.push(shapes.image(dataUrl(image)));
    }
  }
  if (imageParts.length > 0) out.push(JSON.stringify(shapes.userMessage(imageParts)));
  return out;
}

/**
 * One JSON text per wire item in OpenAI's formats, each depending only on its own source messages,
 * never on later ones: `item` writes a user or assistant message, `shapes` a run of tool results.
 */
export function serializeWithToolRuns(
  messages: readonly Message[],
  acceptsImages: boolean,
  item: (m: Exclude<Message, ToolResultMessage>) => string[],
  shapes: ToolRunShapes,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Message;
    if (m.role !== "tool") {
      out.push(...item(m));
      continue;
    }
    const run: ToolResultMessage[] = [];
    while (i < messages.length && messages[i]?.role === "tool") run.push(messages[i++] as ToolResultMessage);
    i--;
    out.push(...toolRunItems(run, acceptsImages, shapes));
  }
  return out;
}
