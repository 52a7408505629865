// Turns HTTP statuses and network failures into one-line, actionable ModelErrors. Every text that leaves
// this module passes through `redact`, so an API key echoed by a server never reaches a log or the user.

import { asRecord, parseJson } from "../config/records.js";
import { oneLine } from "../config/text.js";
import type { ModelError, ModelErrorKind, SettingOrigins } from "./types.js";

/** What went wrong in one try, before the retry loop decides whether to try again. */
export interface Failure {
  kind: ModelErrorKind;
  message: string;
  retryable: boolean;
  status?: number;
  detail?: string;
  retryAfterMs?: number;
}

export interface ErrorContext {
  url: string;
  baseUrl: string;
  model: string;
  apiKey?: string;
  origins?: SettingOrigins;
}

const MAX_DETAIL = 2000;
const MAX_SERVER_TEXT = 300;

export function redact(text: string, apiKey: string | undefined): string {
  if (!apiKey || apiKey.length < 4) return text;
  return text.split(apiKey).join("[redacted]");
}

/** A server's text as one line of an error message, cut at MAX_SERVER_TEXT characters. */
export function serverLine(text: string): string {
  return oneLine(text, MAX_SERVER_TEXT);
}

/** The human part of an error body, across the shapes OpenAI, Anthropic, Ollama, vLLM and FastAPI use. */
export function serverMessage(body: string): string {
  if (isHtml(body)) return htmlPage(body);
  const parsed = parseJson(body);
  // Gemini wraps its error object in an array.
  const json = asRecord(Array.isArray(parsed) ? parsed[0] : parsed);
  const err = json?.error;
  if (typeof err === "string") return err;
  const msg = asRecord(err)?.message;
  if (typeof msg === "string") return msg;
  for (const key of ["message", "detail"]) {
    const value = json?.[key];
    if (typeof value === "string") return value;
  }
  return body;
}

/**
 * How servers say a prompt does not fit the model's context window, in their codes and messages:
 * OpenAI and Groq, Azure, Cerebras (`context_length_exceeded`), OpenAI's Responses API ("exceeds the
 * context window"), Anthropic ("prompt is too long", "exceed context limit"), vLLM, DeepSeek and
 * OpenRouter ("maximum context length"), vLLM's newer "longer than the maximum model length",
 * llama.cpp (`exceed_context_size_error`), Ollama ("prompt too long; exceeded max context length"),
 * Mistral ("too large for model with N maximum context length"), Gemini ("input token count ...
 * exceeds the maximum"), xAI ("maximum prompt length").
 */
const TOO_LONG = new RegExp(
  [
    "context_length_exceeded",
    "exceed_context_size",
    "maximum context length",
    "max context length",
    "maximum prompt length",
    "prompt is too long",
    "prompt too long",
    "exceeds? (the )?(available )?context (size|window|length|limit)",
    "longer than the maximum model length",
    "input token count.{0,40}exceeds the maximum",
  ].join("|"),
  "i",
);

/** Whether an error's text (a body, a code, a message) says the prompt is longer than the model's window. */
function saysTooLong(text: string): boolean {
  return TOO_LONG.test(text);
}

/** A refusal of the request: one too long for the model's window (compacting helps), or another. */
export function refusalKind(text: string): "context_length" | "bad_request" {
  return saysTooLong(text) ? "context_length" : "bad_request";
}

/** A proxy's or a sign-in portal's page rather than the API's JSON. */
function isHtml(text: string): boolean {
  return /^\s*<(!doctype html|html)[\s>]/i.test(text);
}

/** An HTML page as its title, not its markup. */
export function htmlPage(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
  return title ? `an HTML page ("${title}")` : "an HTML page";
}

/**
 * The wait a body asks for when no header does: OpenAI's "Please try again in 2.5s" (or "in 120ms",
 * "in 1m30s", "in 1h2m3s"), Azure's "retry after 20 seconds", Gemini's RetryInfo `"retryDelay": "37s"`.
 * A unit it does not know ("in 5 minutes" once read as 5 s) gives no wait rather than a wrong one.
 */
function bodyRetryAfterMs(body: string): number | undefined {
  const m =
    /(?:try again in|retry after|retry in|"retryDelay"\s*:\s*")\s*(?:(\d+)h)?(?:(\d+)m(?!s))?\s*(\d+(?:\.\d+)?)?(?:\s*(ms|s|secs?|seconds?|m|mins?|minutes?|h|hours?)(?![a-z])|(?!\s*[a-z]))/i.exec(
      body,
    );
  if (!m || (m[3] === undefined && m[1] === undefined && m[2] === undefined)) return undefined;
  const unit = m[4]?.toLowerCase() ?? "s";
  const scale = unit === "ms" ? 1 : unit.startsWith("h") ? 3_600_000 : unit.startsWith("m") ? 60_000 : 1000;
  const value = Number(m[3] ?? 0) * scale + Number(m[2] ?? 0) * 60_000 + Number(m[1] ?? 0) * 3_600_000;
  return Number.isFinite(value) ? Math.round(value) : undefined;
}

function withServerText(base: string, body: string): string {
  const text = serverLine(serverMessage(body));
  return text ? `${base}: ${text}` : base;
}

export function httpFailure(status: number, body: string, ctx: ErrorContext, retryAfterMs?: number): Failure {
  const detail = body ? body.slice(0, MAX_DETAIL) : undefined;
  const common = { status, detail, retryAfterMs: retryAfterMs ?? bodyRetryAfterMs(body) };
  if (status === 401 || status === 403) {
    const base = ctx.apiKey
      ? `the endpoint ${ctx.baseUrl} rejected the API key (HTTP ${status}); check ${ctx.origins?.apiKey ?? "RELM_API_KEY"}`
      : `the endpoint ${ctx.baseUrl} requires an API key (HTTP ${status}) and none is set; set RELM_API_KEY`;
    return { kind: "auth", message: base, retryable: false, ...common };
  }
  if (status === 404) {
    const base =
      `model "${ctx.model}" or its endpoint was not found at ${ctx.baseUrl} (HTTP 404); ` +
      `check ${ctx.origins?.model ?? "RELM_MODEL"} and ${ctx.origins?.baseUrl ?? "RELM_BASE_URL"}`;
    return { kind: "not_found", message: withServerText(base, body), retryable: false, ...common };
  }
  if (status === 429 && /request too large|must be reduced/i.test(body)) {
    // OpenAI's tokens-per-minute limit refuses one request larger than it: no wait makes it fit, a
    // shorter conversation does.
    const base = `the request for model "${ctx.model}" is larger than the endpoint's rate limit allows (HTTP 429)`;
    return { kind: "context_length", message: withServerText(base, body), retryable: false, ...common };
  }
  if (status === 429) {
    const base = `the endpoint ${ctx.baseUrl} is rate limiting requests (HTTP 429)`;
    return { kind: "rate_limited", message: withServerText(base, body), retryable: true, ...common };
  }
  if (status === 408) {
    const base = `the endpoint ${ctx.baseUrl} timed out (HTTP 408)`;
    return { kind: "timeout", message: withServerText(base, body), retryable: true, ...common };
  }
  if (status === 409 || status >= 500) {
    const base = `the endpoint ${ctx.baseUrl} failed (HTTP ${status})`;
    return { kind: "server", message: withServerText(base, body), retryable: true, ...common };
  }
  // 413: more bytes than the endpoint takes (Anthropic's request_too_large, a proxy's body limit); like a
  // prompt too long for the window, what shrinks it is a shorter conversation.
  if (status === 413 || saysTooLong(body)) {
    const base =
      status === 413
        ? `the request for model "${ctx.model}" is too large for the endpoint ${ctx.baseUrl} (HTTP 413)`
        : `the prompt is too long for the context window of model "${ctx.model}" (HTTP ${status})`;
    return { kind: "context_length", message: withServerText(base, body), retryable: false, ...common };
  }
  const base = `the endpoint ${ctx.baseUrl} rejected the request for model "${ctx.model}" (HTTP ${status})`;
  return { kind: "bad_request", message: withServerText(base, body), retryable: false, ...common };
}

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
const TIMEOUTS = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/** Error codes anywhere in the cause chain; undici wraps them, and happy eyeballs aggregates them. */
function errorCodes(err: unknown, depth = 0): string[] {
  if (!err || typeof err !== "object" || depth > 5) return [];
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  const codes: string[] = typeof e.code === "string" ? [e.code] : [];
  codes.push(...errorCodes(e.cause, depth + 1));
  if (Array.isArray(e.errors)) for (const inner of e.errors) codes.push(...errorCodes(inner, depth + 1));
  return codes;
}

/** A failure of the connection itself (fetch rejected, or the body stream broke). */
export function networkFailure(err: unknown, ctx: ErrorContext, phase: "connect" | "read"): Failure {
  const codes = errorCodes(err);
  const unreachable = codes.find((c) => UNREACHABLE.has(c));
  if (unreachable) {
    return {
      kind: "unreachable",
      retryable: false,
      message:
        `cannot connect to ${ctx.url} (${unreachable}): the server is not running or not reachable; ` +
        `check ${ctx.origins?.baseUrl ?? "RELM_BASE_URL"}`,
    };
  }
  // fetch refuses ports reserved for other protocols (e.g. 6000, 9) before connecting: retrying is futile.
  if (/bad port/i.test(String((err as { cause?: { message?: unknown } } | null)?.cause?.message ?? ""))) {
    return {
      kind: "unreachable",
      retryable: false,
      message: `cannot connect to ${ctx.url}: fetch blocks that port as unsafe; serve the model on another port`,
    };
  }
  const timeout = codes.find((c) => TIMEOUTS.has(c));
  if (timeout) {
    return { kind: "timeout", retryable: true, message: `the request to ${ctx.url} timed out (${timeout})` };
  }
  // Redacted before it is made one line and cut: fetch's error for a header it refuses quotes the value.
  const code =
    codes[0] ?? (err instanceof Error ? oneLine(redact(err.message, ctx.apiKey), 80) : "unknown error");
  const message =
    phase === "connect"
      ? `the connection to ${ctx.url} failed (${code})`
      : `the response stream from ${ctx.url} broke (${code})`;
  return { kind: "stream", retryable: true, message };
}

export function idleFailure(ctx: ErrorContext, idleMs: number): Failure {
  return {
    kind: "timeout",
    retryable: true,
    message: `no data from ${ctx.url} for ${idleMs < 10_000 ? `${idleMs} ms` : `${Math.round(idleMs / 1000)} s`}`,
  };
}

export function abortedError(attempts: number): ModelError {
  return { kind: "aborted", message: "the model request was aborted", attempts };
}

export function toModelError(f: Failure, attempts: number, apiKey: string | undefined): ModelError {
  let message = redact(f.message, apiKey);
  if (f.retryable && attempts > 1) message += ` (gave up after ${attempts} attempts)`;
  const error: ModelError = { kind: f.kind, message, attempts };
  if (f.status !== undefined) error.status = f.status;
  if (f.detail !== undefined) error.detail = redact(f.detail, apiKey);
  return error;
}
