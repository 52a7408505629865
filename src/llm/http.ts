// One model request over HTTP with retries: fetch, idle timeout, status handling, decoding, backoff.
// Yields deltas as they arrive; a `retry` event tells the consumer to drop what it got so far.

import { longTimeout } from "../config/long-timeout.js";
import { parseJson } from "../config/records.js";
import {
  abortedError,
  type ErrorContext,
  type Failure,
  htmlPage,
  httpFailure,
  idleFailure,
  networkFailure,
  redact,
  serverLine,
  serverMessage,
  toModelError,
} from "./errors.js";
import { backoffMs, parseRetryAfter, type RetryPolicy, retryFits, sleep } from "./retry.js";
import { formatBytes, parseSse, SseLimitError } from "./sse.js";
import type { StreamEvent } from "./types.js";
import { type Decoded, type DecodeResult, type DeltaEvent, replayDeltas, type WireFormat } from "./wire.js";

export interface HttpCall {
  url: string;
  headers: Record<string, string>;
  body: string;
  stream: boolean;
  wire: Pick<WireFormat, "decodeStream" | "decodeJson">;
  ctx: ErrorContext;
  /** Epoch ms: no retry starts that the time left cannot cover (see retryFits). */
  deadline?: number;
  /** Authenticating headers added before each try (subscriptions); see ClientOptions.auth. */
  auth?: (context: { refresh: boolean }) => Promise<Record<string, string>>;
  /** The most bytes one streamed event, or a whole JSON answer, may have (ClientOptions.maxEventBytes). */
  maxEventBytes: number;
}

type HttpEvent =
  | DeltaEvent
  | Extract<StreamEvent, { type: "retry" | "error" }>
  | { type: "decoded"; value: Decoded; attempts: number };

const ERROR_BODY_CAP = 64 * 1024;

export async function* sendWithRetries(
  call: HttpCall,
  policy: RetryPolicy,
  signal?: AbortSignal,
): AsyncGenerator<HttpEvent, void> {
  const maxAttempts = Math.max(1, Math.floor(policy.maxAttempts));
  let refresh = false;
  let refreshed = false;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) {
      yield { type: "error", error: abortedError(attempt - 1) };
      return;
    }
    const tryStarted = Date.now();
    const result = yield* tryOnce(call, policy, signal, refresh);
    refresh = false;
    if (result.ok) {
      yield { type: "decoded", value: result.value, attempts: attempt };
      return;
    }
    const failure = result.failure;
    if (failure.status === 401 && call.auth && !refreshed) {
      // A token that expired early or was revoked: refreshed once, and the try repeated at once.
      refresh = true;
      refreshed = true;
      continue;
    }
    if ((failure.status === 401 || failure.status === 403) && call.auth) {
      // Not an API key's failure: refused again with fresh credentials, only a new sign-in can help.
      const again = failure.status === 401 ? " even after a token refresh" : "";
      const said = failure.detail ? `: ${serverLine(serverMessage(failure.detail))}` : "";
      failure.message =
        `${call.ctx.baseUrl} refused the sign-in${again} (HTTP ${failure.status})${said}; ` +
        "run `relm login` to sign in again";
    }
    if (failure.kind === "aborted" || signal?.aborted) {
      yield { type: "error", error: abortedError(attempt) };
      return;
    }
    if (!failure.retryable || attempt >= maxAttempts) {
      yield { type: "error", error: toModelError(failure, attempt, call.ctx.apiKey) };
      return;
    }
    const delayMs = backoffMs(attempt, policy, failure.retryAfterMs);
    if (
      call.deadline !== undefined &&
      !retryFits(call.deadline, Date.now(), delayMs, Date.now() - tryStarted, policy)
    ) {
      const error = toModelError(failure, attempt, call.ctx.apiKey);
      error.message += "; not retried: the time left before the deadline cannot cover another try";
      error.outOfTime = true;
      yield { type: "error", error };
      return;
    }
    yield { type: "retry", attempt: attempt + 1, delayMs, reason: redact(failure.message, call.ctx.apiKey) };
    if (!(await sleep(delayMs, signal))) {
      yield { type: "error", error: abortedError(attempt) };
      return;
    }
  }
}

/**
 * One try. Whatever failure it reports is cleared of the sign-in's header values first: a server may
 * echo them in an HTTP error body, in an error event inside a 200 stream, or in a JSON answer.
 */
async function* tryOnce(
  call: HttpCall,
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  refresh: boolean,
): AsyncGenerator<DeltaEvent, DecodeResult> {
  const secrets: string[] = [];
  const result = yield* tryWith(call, policy, signal, refresh, secrets);
  return result.ok ? result : { ok: false, failure: redactFailure(result.failure, secrets) };
}

async function* tryWith(
  call: HttpCall,
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  refresh: boolean,
  /** Filled with the sign-in's header values once they are known. */
  secrets: string[],
): AsyncGenerator<DeltaEvent, DecodeResult> {
  const controller = new AbortController();
  let idle = false;
  const onIdle = () => {
    idle = true;
    controller.abort();
  };
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  const fail = (failure: Failure): DecodeResult => ({ ok: false, failure });
  const classify = (err: unknown, phase: "connect" | "read"): DecodeResult => {
    if (signal?.aborted) return fail({ kind: "aborted", message: "aborted", retryable: false });
    if (idle) return fail(idleFailure(call.ctx, policy.idleTimeoutMs));
    return fail(networkFailure(err, call.ctx, phase));
  };

  try {
    let headers = call.headers;
    if (call.auth) {
      try {
        const added = await call.auth({ refresh });
        headers = withAuthHeaders(headers, added);
        // The sign-in's header values: a server that echoes them must not put them in an error.
        secrets.push(
          ...Object.entries(added)
            .filter(([name]) => /^(authorization|x-api-key)$/i.test(name))
            .flatMap(([, v]) => [v, v.replace(/^(Bearer|token) /i, "")]),
        );
      } catch (err) {
        // A sign-in that cannot produce a token (refresh refused, signed out) is the user's to fix.
        const text = err instanceof Error ? err.message : String(err);
        return fail({ kind: "auth", retryable: false, message: `sign-in failed: ${text}` });
      }
    }
    let response: Response;
    const timer = longTimeout(onIdle, policy.idleTimeoutMs);
    try {
      response = await fetch(call.url, {
        method: "POST",
        headers,
        body: call.body,
        signal: controller.signal,
      });
    } catch (err) {
      return classify(err, "connect");
    } finally {
      timer.clear();
    }

    const chunks = timedChunks(response.body, policy.idleTimeoutMs, onIdle);
    try {
      if (!response.ok) {
        let text = "";
        try {
          text = await readText(chunks, ERROR_BODY_CAP);
        } catch {
          // The status alone is enough to classify the failure.
        }
        const failure = httpFailure(response.status, text, call.ctx, parseRetryAfter(response.headers));
        return fail(failure);
      }
      const contentType = response.headers.get("content-type") ?? "";
      if (contentType.includes("text/html")) {
        // A proxy's or a sign-in portal's page, or a base URL that is a web site: the same again on a retry.
        const page = htmlPage(await readText(chunks, ERROR_BODY_CAP).catch(() => ""));
        return fail({
          kind: "not_found",
          retryable: false,
          message:
            `the endpoint ${call.ctx.baseUrl} answered with ${page}, not the model API (a proxy or sign-in ` +
            `page, or not the API's base URL); check ${call.ctx.origins?.baseUrl ?? "RELM_BASE_URL"}`,
        });
      }
      // Some servers ignore `stream: true` and answer with one JSON document; accept that too.
      if (call.stream && !contentType.includes("application/json")) {
        return yield* call.wire.decodeStream(parseSse(chunks, { maxEventBytes: call.maxEventBytes }));
      }
      const text = await readText(chunks, call.maxEventBytes, true);
      const json = parseJson(text);
      if (json === undefined) {
        return fail({
          kind: "stream",
          retryable: true,
          message: `the response from ${call.ctx.url} was not valid JSON (${text.length} bytes)`,
        });
      }
      const result = call.wire.decodeJson(json);
      if (result.ok) yield* replayDeltas(result.value);
      return result;
    } catch (err) {
      if (err instanceof SseLimitError) return fail(oversizeFailure(call.ctx, err));
      return classify(err, "read");
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    // Releases the connection when the decoder stopped early (after its end marker) or the consumer left.
    controller.abort();
  }
}

/** The sign-in's headers over the wire format's; beta flags from both are kept (Anthropic's list). */
function withAuthHeaders(
  base: Record<string, string>,
  added: Record<string, string>,
): Record<string, string> {
  const merged = { ...base, ...added };
  const beta = [base["anthropic-beta"], added["anthropic-beta"]].filter(Boolean);
  if (beta.length > 1) merged["anthropic-beta"] = beta.join(",");
  return merged;
}

function redactFailure(failure: Failure, secrets: string[]): Failure {
  for (const secret of secrets) {
    failure.message = redact(failure.message, secret);
    if (failure.detail !== undefined) failure.detail = redact(failure.detail, secret);
  }
  return failure;
}

/** Body chunks; the idle timer runs only while waiting on the network, not while the consumer works. */
async function* timedChunks(
  body: ReadableStream<Uint8Array> | null,
  idleMs: number,
  onIdle: () => void,
): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const timer = longTimeout(onIdle, idleMs);
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } finally {
        timer.clear();
      }
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!finished) reader.cancel().catch(() => {});
  }
}

/**
 * A server that sends more than the cap in one event is broken (no model writes 16 MB in one delta):
 * the answer is refused rather than read on, and not retried — the same server would do it again.
 */
function oversizeFailure(ctx: ErrorContext, err: SseLimitError): Failure {
  return {
    kind: "stream",
    retryable: false,
    message:
      `the response from ${ctx.url} was malformed: ${err.what} was larger than ${formatBytes(err.limitBytes)}; ` +
      "if the server is right, raise maxStreamEventMB in config.json",
  };
}

/** The body as text, cut at `cap` bytes; with `refuse`, a longer body is an SseLimitError instead. */
async function readText(chunks: AsyncIterable<Uint8Array>, cap: number, refuse = false): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += chunk.length;
    if (bytes > cap && refuse) throw new SseLimitError(cap, "the answer");
    text += decoder.decode(chunk, { stream: true });
    if (text.length > cap) return text.slice(0, cap);
  }
  return text + decoder.decode();
}
