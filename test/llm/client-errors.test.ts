// The client against the error answers of real servers and proxies (client.test.ts: the common path).
import { describe, expect, it } from "vitest";
import {
  clientFor,
  doneOf,
  errorOf,
  events,
  ofType,
  request,
  userText,
  useScriptedModels,
} from "./helpers.js";

const start = useScriptedModels();

describe("prompts too long for the window, as each server says it", () => {
  // Bodies as the servers send them (messages shortened where they go on).
  const bodies: [string, number, string][] = [
    [
      "Responses API",
      400,
      '{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}',
    ],
    [
      "vLLM",
      400,
      '{"object":"error","message":"This model\'s maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).","type":"BadRequestError","param":null,"code":400}',
    ],
    [
      "vLLM (newer)",
      400,
      '{"object":"error","message":"The decoder prompt (length 9000) is longer than the maximum model length of 8192.","type":"BadRequestError","code":400}',
    ],
    [
      "llama.cpp",
      400,
      '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}',
    ],
    ["Ollama", 400, '{"error":"prompt too long; exceeded max context length by 412 tokens"}'],
    [
      "Anthropic, with max_tokens",
      400,
      '{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 197000 + 16384 > 200000, decrease input length or `max_tokens` and try again"}}',
    ],
    [
      "Mistral",
      400,
      '{"object":"error","message":"Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length","type":"invalid_request_invalid_args"}',
    ],
    [
      "Gemini",
      400,
      '[{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}]',
    ],
    [
      "xAI",
      400,
      '{"code":"Client specified an invalid argument","error":"This model\'s maximum prompt length is 131072 but the request contains 140000 tokens."}',
    ],
    [
      "Anthropic, bytes",
      413,
      '{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}',
    ],
    ["a proxy", 413, "<html><head><title>413 Request Entity Too Large</title></head></html>"],
  ];
  it.each(bodies)("%s", async (_server, status, body) => {
    const m = await start({ script: [{ status, body }] });
    const { error } = errorOf(await events(clientFor(m, "openai", true), request([userText("hi")])));
    expect(error).toMatchObject({ kind: "context_length", status, attempts: 1 });
    expect(m.requests).toHaveLength(1);
  });

  it("and mid-stream: a chunk's error, a response.failed, an Anthropic error event", async () => {
    const chunk = {
      message: "This model's maximum context length is 4096 tokens.",
      type: "BadRequestError",
      code: 400,
    };
    const m = await start({
      script: [
        { raw: [`data: ${JSON.stringify({ error: chunk })}\n\n`] },
        {
          failed: {
            code: "context_length_exceeded",
            message: "Your input exceeds the context window of this model.",
          },
        },
        {
          failed: {
            code: "invalid_request_error",
            message: "prompt is too long: 210000 tokens > 200000 maximum",
          },
        },
      ],
    });
    const hi = request([userText("hi")]);
    const kinds = [
      errorOf(await events(clientFor(m, "openai", true), hi)).error.kind,
      errorOf(await events(clientFor(m, "openai-responses", true), hi)).error.kind,
      errorOf(await events(clientFor(m, "anthropic", true), hi)).error.kind,
    ];
    expect(kinds).toEqual(["context_length", "context_length", "context_length"]);
  });

  it("the scripted model's tooLong step in the Responses API's words", async () => {
    const m = await start({ script: [{ tooLong: true }] });
    const { error } = errorOf(
      await events(clientFor(m, "openai-responses", true), request([userText("hi")])),
    );
    expect(error).toMatchObject({ kind: "context_length", status: 400, attempts: 1 });
    expect(error.message).toMatch(/Your input exceeds the context window of this model/);
    expect(m.requests[0]?.path).toBe("/v1/responses");
  });

  it("a refusal for another reason stays bad_request", async () => {
    const body =
      '{"error":{"message":"Invalid value for \'temperature\'","type":"invalid_request_error","code":"invalid_value"}}';
    const m = await start({ script: [{ status: 400, body }] });
    const { error } = errorOf(await events(clientFor(m, "openai", true), request([userText("hi")])));
    expect(error.kind).toBe("bad_request");
  });
});

describe("error shapes of servers and proxies", () => {
  const page =
    "<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{}</style></head>" +
    "<body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>";
  const hi = request([userText("hi")]);

  it("waits what a 429's body asks for when no header does (OpenAI, Azure, Gemini)", async () => {
    const m = await start({
      script: [
        {
          status: 429,
          body: '{"error":{"message":"Rate limit reached for gpt-4o. Please try again in 1.5s.","code":"rate_limit_exceeded"}}',
        },
        { status: 429, body: '{"error":{"code":"429","message":"Please retry after 1 second."}}' },
        {
          status: 503,
          body: '[{"error":{"code":503,"message":"overloaded","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0.5s"}]}}]',
        },
        { status: 429, body: '{"error":{"message":"Please try again in 250ms."}}' },
        { text: "ok" },
      ],
    });
    const list = await events(clientFor(m, "openai", true), hi);
    expect(ofType(list, "retry").map((e) => e.delayMs)).toEqual([1500, 1000, 500, 250]);
    // Gemini's array-wrapped error is read for its message, not quoted as JSON.
    expect(ofType(list, "retry")[2]?.reason).toMatch(/\(HTTP 503\): overloaded$/);
    expect(doneOf(list).message.text).toBe("ok");
  });

  it("a request over a tokens-per-minute limit is not retried: it is too long, as a prompt over the window is", async () => {
    const body =
      '{"error":{"message":"Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, ' +
      'Requested 45000. The input or output tokens must be reduced in order to run successfully.","type":"tokens","code":"rate_limit_exceeded"}}';
    const m = await start({ script: [{ status: 429, body }] });
    const { error } = errorOf(await events(clientFor(m, "openai", true), hi));
    expect(error).toMatchObject({ kind: "context_length", status: 429, attempts: 1 });
    expect(error.message).toMatch(
      /larger than the endpoint's rate limit allows \(HTTP 429\): Request too large/,
    );
  });

  it("says a proxy's HTML error page by its title, and retries it", async () => {
    const m = await start({ script: [{ status: 502, body: page }, { text: "ok" }] });
    const list = await events(clientFor(m, "openai", true), hi);
    expect(ofType(list, "retry")[0]?.reason).toMatch(
      /failed \(HTTP 502\): an HTML page \("502 Bad Gateway"\)$/,
    );
    expect(doneOf(list).message.text).toBe("ok");
  });

  it("an HTML page with HTTP 200 (a sign-in portal, a web site) is not the API: said so once, with the base URL's origin", async () => {
    const portal = page.replace(/502 Bad Gateway/g, "Sign in to the network");
    const m = await start({
      script: [{ status: 200, body: portal, headers: { "content-type": "text/html; charset=utf-8" } }],
      onExhausted: "repeat-last",
    });
    for (const stream of [true, false]) {
      const client = clientFor(m, "openai", stream, { origins: { baseUrl: "OPENAI_BASE_URL" } });
      const { error } = errorOf(await events(client, hi));
      expect(error).toMatchObject({ kind: "not_found", attempts: 1 });
      expect(error.message).toMatch(
        /answered with an HTML page \("Sign in to the network"\), not the model API .*; check OPENAI_BASE_URL$/,
      );
    }
    expect(m.requests).toHaveLength(2);
  });
});

describe("Retry-After", () => {
  it("waits the seconds a 429 asks for", async () => {
    const m = await start({ script: [{ status: 429, retryAfter: 1 }, { text: "ok" }] });
    const list = await events(clientFor(m, "openai", true), request([userText("hi")]));
    expect(ofType(list, "retry").map((e) => e.delayMs)).toEqual([1000]);
    expect(ofType(list, "retry")[0]?.reason).toMatch(/HTTP 429/);
  });

  it("reports rate_limited after all attempts", async () => {
    const m = await start({ script: [{ status: 429 }, { status: 429 }] });
    const list = await events(clientFor(m, "anthropic", true, { maxAttempts: 2 }), request([userText("hi")]));
    expect(errorOf(list).error).toMatchObject({ kind: "rate_limited", attempts: 2 });
    expect(m.requests).toHaveLength(2);
  });
});

describe("error chunks of OpenAI-compatible servers", () => {
  const frame = (error: unknown) => `data: ${JSON.stringify({ error })}\n\n`;

  it("reads a numeric status in the chunk: a 400 (vLLM) is reported once, a 500 (llama.cpp) retried", async () => {
    const m = await start({
      script: [
        { raw: [frame({ code: 500, message: "slot crashed", type: "server_error" })] },
        { raw: [frame({ object: "error", message: "prompt too long", type: "BadRequestError", code: 400 })] },
      ],
    });
    const list = await events(clientFor(m, "openai", true), request([userText("hi")]));
    expect(ofType(list, "retry")).toHaveLength(1);
    expect(errorOf(list).error).toMatchObject({ kind: "context_length", attempts: 2 });
    expect(errorOf(list).error.message).toContain("prompt too long");
  });

  it("retries an error that says nothing of its kind, and a rate limit", async () => {
    const m = await start({
      script: [
        { raw: [frame("something went wrong")] },
        { raw: [frame({ message: "slow down", code: "rate_limit_exceeded" })] },
        { text: "ok" },
      ],
    });
    const list = await events(clientFor(m, "openai", true), request([userText("hi")]));
    expect(ofType(list, "retry")).toHaveLength(2);
    expect(doneOf(list).message.text).toBe("ok");
  });
});
