// The few HTTP calls of a sign-in (token endpoint, device code, Copilot's token), with a timeout and
// errors a person can act on. Nothing a server sends back is echoed in full: an error body may carry a
// token, so only its `error` / `error_description` words are kept.
import { asRecord, parseJson } from "../../config/records.js";

/** A sign-in or refresh that failed; `signedOut` when only a new `relm login` can help. */
export class OAuthError extends Error {
  constructor(
    message: string,
    readonly signedOut = false,
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 30_000;

interface OAuthResponse {
  status: number;
  json: Record<string, unknown>;
}

export async function oauthFetch(
  what: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; form?: Record<string, string>; json?: unknown },
): Promise<OAuthResponse> {
  const headers: Record<string, string> = { accept: "application/json", ...init.headers };
  let body: string | undefined;
  if (init.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(init.form).toString();
  } else if (init.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.json);
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method ?? (body === undefined ? "GET" : "POST"),
      headers,
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const why =
      (error as Error).name === "TimeoutError"
        ? "no answer within 30 s"
        : (cause ?? (error as Error).message);
    throw new OAuthError(`${what}: cannot reach ${new URL(url).origin} (${why})`);
  }
  const text = await response.text().catch(() => "");
  // Some endpoints answer errors in HTML or plain text; the status says enough.
  return { status: response.status, json: asRecord(parseJson(text)) ?? {} };
}

/** The OAuth error words of a failed answer (`invalid_grant: Refresh token expired`), never its tokens. */
export function oauthErrorText(response: OAuthResponse): string {
  const { json } = response;
  const parts: string[] = [];
  const error = typeof json.error === "string" ? json.error : asRecord(json.error)?.message;
  if (typeof error === "string") parts.push(error);
  const description = json.error_description ?? json.message;
  if (typeof description === "string") parts.push(description);
  const text = parts.join(": ").replace(/\s+/g, " ").slice(0, 200);
  return text ? `HTTP ${response.status}, ${text}` : `HTTP ${response.status}`;
}

export function stringField(json: Record<string, unknown>, name: string, what: string): string {
  const value = json[name];
  if (typeof value !== "string" || value === "") throw new OAuthError(`${what}: the answer has no ${name}`);
  return value;
}

/** Milliseconds since the epoch when a token given `expires_in` seconds now runs out. */
export function expiryFrom(json: Record<string, unknown>, fallbackSeconds = 3600): number {
  const seconds = typeof json.expires_in === "number" ? json.expires_in : Number(json.expires_in);
  return Date.now() + (Number.isFinite(seconds) && seconds > 0 ? seconds : fallbackSeconds) * 1000;
}
