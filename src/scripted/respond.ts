// Low-level response writing for the scripted model server, and small pure helpers it uses.

import type { IncomingMessage, ServerResponse } from "node:http";
import { anthropicError } from "./anthropic-wire.js";
import { openaiError } from "./openai-wire.js";
import type { Reply, WireFormatName } from "./script.js";

export function sendStatusStep(
  res: ServerResponse,
  format: WireFormatName,
  reply: Extract<Reply, { kind: "status" }>,
) {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.retryAfter !== undefined) headers["retry-after"] = String(reply.retryAfter);
  if (reply.body !== undefined) {
    const json = reply.body.trimStart().startsWith("{");
    return send(
      res,
      reply.status,
      reply.body,
      json ? "application/json" : "text/plain; charset=utf-8",
      headers,
    );
  }
  const message = `scripted HTTP ${reply.status}`;
  const body =
    format !== "anthropic"
      ? openaiError(message, reply.status >= 500 ? "server_error" : "invalid_request_error")
      : anthropicError(message, reply.status === 429 ? "rate_limit_error" : "api_error");
  return send(res, reply.status, body, "application/json", headers);
}

/**
 * A prompt of `tokens` (the server's count) refused as longer than the window, in the words of the
 * format's API: OpenAI's chat completions, its Responses API, Anthropic.
 */
export function sendTooLong(
  res: ServerResponse,
  format: WireFormatName,
  reply: Extract<Reply, { kind: "too_long" }>,
  tokens: number,
) {
  const window = reply.window ?? Math.max(1, Math.min(8192, tokens - 1));
  const body =
    format === "anthropic"
      ? anthropicError(`prompt is too long: ${tokens} tokens > ${window} maximum`, "invalid_request_error")
      : openaiError(
          format === "responses"
            ? "Your input exceeds the context window of this model. Please adjust your input and try again."
            : `This model's maximum context length is ${window} tokens. However, your messages resulted in ` +
                `${tokens} tokens. Please reduce the length of the messages.`,
          "invalid_request_error",
          "context_length_exceeded",
        );
  return send(res, 400, body);
}

export function sendError(
  res: ServerResponse,
  format: WireFormatName,
  status: number,
  message: string,
  type: string,
) {
  send(res, status, format !== "anthropic" ? openaiError(message, type) : anthropicError(message, type));
}

/** Headers and part of the body, then a destroyed socket: the client sees a stream without its end. */
export function dropResponse(res: ServerResponse, stream: boolean, frames: string[], json: string) {
  if (stream) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const part = frames.slice(0, Math.max(1, Math.floor(frames.length / 2))).join("");
    res.write(part, () => res.destroy());
    return;
  }
  res.writeHead(200, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(json)),
  });
  res.write(json.slice(0, Math.floor(json.length / 2)), () => res.destroy());
}

export function send(
  res: ServerResponse,
  status: number,
  body: string,
  contentType = "application/json",
  headers: Record<string, string> = {},
) {
  if (res.destroyed) return;
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

export function modelList(models: string[], anthropic: boolean): string {
  if (anthropic) {
    const data = models.map((id) => ({
      type: "model",
      id,
      display_name: id,
      created_at: "1970-01-01T00:00:00Z",
    }));
    return JSON.stringify({
      data,
      has_more: false,
      first_id: models[0] ?? null,
      last_id: models.at(-1) ?? null,
    });
  }
  const data = models.map((id) => ({ id, object: "model", created: 0, owned_by: "relm" }));
  return JSON.stringify({ object: "list", data });
}

export function presentedKey(req: IncomingMessage, format: WireFormatName): string | undefined {
  const auth = req.headers.authorization;
  const bearer = auth?.startsWith("Bearer ") ? auth.slice(7) : undefined;
  if (format !== "anthropic") return bearer;
  const key = req.headers["x-api-key"];
  return (typeof key === "string" ? key : undefined) ?? bearer;
}

export function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
