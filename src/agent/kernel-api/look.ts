// `look(...)` from Python (python/relm/toolkit/images.py): an image joins the result of the cell that
// called it, so the model sees it in its next request, as display() images do. The kernel side has already
// made it small enough; this side checks the type and size again and says whether the model takes images.

import { base64Bytes } from "../../llm/content.js";
import type { ImageMimeType, ModelClient } from "../../llm/types.js";
import { asRecord, KernelCallError, optionalString, requiredString } from "./errors.js";

export interface LookAgent {
  /** The model the next request goes to (switchable with /model, so read at each call). */
  readonly model: { readonly current: ModelClient };
  readonly kernel: {
    /** Queues an image for the result of the cell running now; false when the cell has too many already. */
    attachImage(image: { mimeType: ImageMimeType; data: string }): boolean;
  };
}

/** The most one image may weigh (Anthropic refuses more than 5 MB of base64; 3.75 MB of bytes). */
const LOOK_MAX_BYTES = 3_750_000;
const TYPES = new Set<string>(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export function handleLookRequest(agent: LookAgent, method: string, raw: unknown): unknown {
  const params = asRecord(raw, method);
  const client = agent.model.current;
  if (method === "look.accepts")
    return { accepts: client.acceptsImages, model: client.model, max_bytes: LOOK_MAX_BYTES };
  if (method !== "look.attach") throw new KernelCallError(`the host has no method "${method}"`, "not_found");
  const mimeType = requiredString(params, "mime") as ImageMimeType;
  const data = requiredString(params, "data");
  const label = optionalString(params, "label") ?? "image";
  if (!TYPES.has(mimeType))
    throw new KernelCallError(`look(): ${mimeType} is not an image type models take (PNG, JPEG, GIF, WebP)`);
  const bytes = base64Bytes(data);
  if (bytes > LOOK_MAX_BYTES)
    throw new KernelCallError(`look(): ${label} is ${bytes} bytes, over the ${LOOK_MAX_BYTES}-byte limit`);
  if (!client.acceptsImages) return { attached: false, accepts: false, model: client.model };
  if (!agent.kernel.attachImage({ mimeType, data }))
    throw new KernelCallError("look(): at most 8 images can be attached to one cell's result");
  return { attached: true, accepts: true, model: client.model };
}
