// An image as the tests send it, and where a chat-completions request carries images.

/** A 1×1 PNG, base64. */
export const TINY_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** The image parts of a chat-completions request's last user message. */
export function imagesSent(rawBody: string | undefined): string[] {
  const body = JSON.parse(rawBody ?? "{}") as { messages?: { role: string; content?: unknown }[] };
  const last = (body.messages ?? []).filter((m) => m.role === "user").at(-1);
  if (!Array.isArray(last?.content)) return [];
  return (last.content as { type: string; image_url?: { url: string } }[])
    .filter((p) => p.type === "image_url")
    .map((p) => p.image_url?.url ?? "");
}
