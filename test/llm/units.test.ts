import { describe, expect, it } from "vitest";
import { httpFailure, redact } from "../../src/llm/errors.js";
import { computeCost, guessAcceptsImages, lookupPrice } from "../../src/llm/index.js";
import { backoffMs, DEFAULT_RETRY_POLICY, parseRetryAfter } from "../../src/llm/retry.js";
import { parseSse, type SseEvent, SseLimitError } from "../../src/llm/sse.js";

async function sse(...chunks: string[]): Promise<SseEvent[]> {
  return sseCapped(undefined, ...chunks);
}

async function sseCapped(maxEventBytes: number | undefined, ...chunks: string[]): Promise<SseEvent[]> {
  async function* source() {
    for (const c of chunks) yield new TextEncoder().encode(c);
  }
  const out: SseEvent[] = [];
  for await (const e of parseSse(source(), { maxEventBytes })) out.push(e);
  return out;
}

describe("parseSse", () => {
  it("joins fields across chunk boundaries, CRLF and CR line ends", async () => {
    expect(await sse("event: a\r", '\ndata: {"x"', ":1}\r\n\r\n", "data:two\rdata: lines\r\r")).toEqual([
      { event: "a", data: '{"x":1}' },
      { event: "message", data: "two\nlines" },
    ]);
  });

  it("skips comments, keeps a final event without its blank line, drops a cut-off line", async () => {
    expect(await sse(": keep-alive\n\n", "data: [DONE]\n")).toEqual([{ event: "message", data: "[DONE]" }]);
    expect(await sse('data: {"partial')).toEqual([]);
  });

  it("decodes multi-byte characters split between chunks", async () => {
    const bytes = new TextEncoder().encode("data: é€\n\n");
    async function* source() {
      for (const b of bytes) yield Uint8Array.of(b);
    }
    const out: SseEvent[] = [];
    for await (const e of parseSse(source())) out.push(e);
    expect(out).toEqual([{ event: "message", data: "é€" }]);
  });

  it("refuses a line, or an event of many lines, longer than its cap, and keeps one that fits", async () => {
    const line = `data: ${"x".repeat(200)}`;
    // One line over the cap, arriving in pieces and never ended: refused without waiting for its end.
    await expect(sseCapped(100, line.slice(0, 50), line.slice(50))).rejects.toThrow(SseLimitError);
    await expect(sseCapped(100, `${line}\n\n`)).rejects.toThrow(/one event was larger than 100 bytes/);
    const small = "data: 0123456789\n";
    await expect(sseCapped(100, small.repeat(10), "\n")).rejects.toThrow(SseLimitError);
    expect(await sseCapped(100, small.repeat(5), "\n", small.repeat(5), "\n")).toHaveLength(2);
    // Under the default cap, a long line in many small chunks is whole.
    const big = "y".repeat(4 * 1024 * 1024);
    const chunks = [];
    for (let i = 0; i < big.length; i += 16 * 1024) chunks.push(big.slice(i, i + 16 * 1024));
    const out = await sse("data: ", ...chunks, "\n\n");
    expect(out[0]?.data.length).toBe(big.length);
  });
});

describe("pricing", () => {
  it("matches exact names, dated snapshots and provider prefixes by the longest known name", () => {
    expect(lookupPrice("gpt-4o")?.input).toBe(2.5);
    expect(lookupPrice("gpt-4o-2024-08-06")?.input).toBe(2.5);
    expect(lookupPrice("gpt-4o-mini")?.input).toBe(0.15);
    expect(lookupPrice("openai/gpt-4.1-mini")?.input).toBe(0.4);
    expect(lookupPrice("claude-sonnet-4-5-20250929")?.output).toBe(15);
    expect(lookupPrice("anthropic/claude-haiku-4.5")?.input).toBe(1);
    expect(lookupPrice("gpt-4-1106-preview")).toBeNull();
    expect(lookupPrice("llama3.1:8b")).toBeNull();
  });

  it("prices cached and cache-write tokens at their own rates", () => {
    const usage = {
      inputTokens: 1_000_000,
      outputTokens: 100_000,
      cachedInputTokens: 600_000,
      cacheWriteTokens: 300_000,
      estimated: false,
    };
    const price = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 };
    expect(computeCost(usage, price)).toBeCloseTo(0.1 * 3 + 0.6 * 0.3 + 0.3 * 3.75 + 0.1 * 15, 10);
    expect(computeCost(usage, { input: 1, output: 2 })).toBeCloseTo(1 + 0.2, 10);
    expect(computeCost(usage, null)).toBeNull();
  });

  it("guesses which models take images", () => {
    expect(guessAcceptsImages("anthropic", "claude-3-5-haiku-latest")).toBe(true);
    expect(guessAcceptsImages("anthropic", "claude-opus-4-1")).toBe(true);
    expect(guessAcceptsImages("anthropic", "claude-2.1")).toBe(false);
    expect(guessAcceptsImages("openai", "gpt-4o-mini")).toBe(true);
    expect(guessAcceptsImages("openai", "gpt-5")).toBe(true);
    expect(guessAcceptsImages("openai", "o3")).toBe(true);
    expect(guessAcceptsImages("openai", "o3-mini")).toBe(false);
    expect(guessAcceptsImages("openai", "qwen2.5-coder:7b")).toBe(false);
    expect(guessAcceptsImages("openai", "openrouter/anthropic/claude-sonnet-4")).toBe(true);
  });
});

describe("retry timing", () => {
  it("reads retry-after-ms, seconds and HTTP dates", () => {
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(parseRetryAfter(new Headers({ "retry-after": "2" }))).toBe(2000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(5000);
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });

  it("uses full jitter under a doubling ceiling, and caps Retry-After at 60 s", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, retryBaseMs: 1000, retryMaxMs: 30_000 };
    expect(backoffMs(1, policy, undefined, () => 0.999)).toBe(999);
    expect(backoffMs(3, policy, undefined, () => 0.5)).toBe(2000);
    expect(backoffMs(10, policy, undefined, () => 1)).toBe(30_000);
    expect(backoffMs(1, policy, undefined, () => 0)).toBe(0);
    expect(backoffMs(1, policy, 120_000)).toBe(60_000);
    expect(backoffMs(1, policy, 1500)).toBe(1500);
  });

  it("reads the wait a 429's body asks for in its own unit, not a minute as a second", () => {
    const ctx = { url: "http://x/v1/chat/completions", baseUrl: "http://x/v1", model: "m" };
    const wait = (message: string) =>
      httpFailure(429, JSON.stringify({ error: { message } }), ctx).retryAfterMs;
    expect(wait("Please try again in 1.5s.")).toBe(1500);
    expect(wait("Please try again in 250ms.")).toBe(250);
    expect(wait("Please try again in 1m30s.")).toBe(90_000);
    expect(wait("Please retry after 20 seconds.")).toBe(20_000);
    expect(wait("Please try again in 5 minutes.")).toBe(300_000);
    expect(wait("Please try again in 2m.")).toBe(120_000);
    expect(wait("Please try again in 1h2m3s.")).toBe(3_723_000);
    expect(wait("Please try again in 3 fortnights.")).toBeUndefined();
  });
});

describe("redact", () => {
  it("removes every occurrence of the key", () => {
    expect(redact("key sk-abc123 and sk-abc123.", "sk-abc123")).toBe("key [redacted] and [redacted].");
    expect(redact("nothing", undefined)).toBe("nothing");
  });
});
