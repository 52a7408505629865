// One GET with limits, made by the host for a kernel: redirects followed by hand so every hop is checked
// against the policy, the body read only up to a byte cap (a declared length over the cap is refused
// before any of the body is read), and the whole exchange bounded in time.

import { refusal, type WebPolicy } from "./policy.js";

interface GetOptions {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  policy: WebPolicy;
  /** Aborts the request (an interrupted cell, the session's time budget). */
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

interface GetResult {
  /** The URL asked for and the one that answered (after redirects). */
  url: string;
  finalUrl: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** Each redirect followed, as "STATUS URL". */
  redirects: string[];
}

/** A request that could not be made or was refused; the message is for the model. */
export class WebError extends Error {
  override name = "WebError";
}

const USER_AGENT = "relm (+https://github.com/relm; fetch for an agent)";

export async function getWithLimits(target: string, options: GetOptions): Promise<GetResult> {
  let url = parseUrl(target);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const redirects: string[] = [];
  try {
    for (;;) {
      const why = refusal(url, options.policy);
      if (why) throw new WebError(redirects.length ? `redirected to ${url.href}: ${why}` : why);
      const response = await fetch(url, {
        redirect: "manual",
        signal,
        headers: {
          "user-agent": USER_AGENT,
          accept: "text/html,text/plain,application/pdf,*/*;q=0.8",
          ...options.headers,
        },
      });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel().catch(() => {});
        if (redirects.length >= options.maxRedirects)
          throw new WebError(
            `${target}: more than ${options.maxRedirects} redirects (last to ${location}); not followed`,
          );
        const next = parseUrl(location, url);
        redirects.push(`${response.status} ${next.href}`);
        url = next;
        continue;
      }
      const body = await readCapped(response, options.maxBytes, url.href);
      return {
        url: target,
        finalUrl: url.href,
        status: response.status,
        contentType: response.headers.get("content-type") ?? "",
        body,
        redirects,
      };
    }
  } catch (error) {
    if (error instanceof WebError) throw error;
    if (timeout.aborted)
      throw new WebError(`${url.href}: no complete answer within ${options.timeoutMs / 1000} s`);
    if (options.signal?.aborted) throw error;
    throw new WebError(`${url.href}: ${describe(error)}`);
  }
}

function parseUrl(text: string, base?: URL): URL {
  try {
    return new URL(text, base);
  } catch {
    throw new WebError(`"${text}" is not a URL (give a full http:// or https:// address)`);
  }
}

/** The body up to `maxBytes`: refused at once when its declared length is over, else when it passes it. */
async function readCapped(response: Response, maxBytes: number, url: string): Promise<Buffer> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new WebError(
      `${url}: the body is ${formatBytes(declared)}, over the ${formatBytes(maxBytes)} cap; not read (pass a larger max_bytes to read it)`,
    );
  }
  if (!response.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new WebError(
        `${url}: the body passed the ${formatBytes(maxBytes)} cap; reading stopped there (pass a larger max_bytes to read it)`,
      );
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks, total);
}

/** Decimal units, as max_bytes=5_000_000 is written: "5 MB". */
export function formatBytes(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")} MB`;
  if (n >= 1000) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")} KB`;
  return `${n} bytes`;
}

/** fetch()'s errors hide the reason in `cause` (ECONNREFUSED, ENOTFOUND, a TLS failure). */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === "ENOTFOUND") return "the host name was not found (DNS)";
  if (cause?.code === "ECONNREFUSED") return "the connection was refused";
  if (cause?.message) return cause.code ? `${cause.message} (${cause.code})` : cause.message;
  return (error as Error).message ?? String(error);
}
