// A model server on 127.0.0.1 that answers from a script, in the OpenAI and Anthropic wire formats.
// It drives the test-suite and `relm demo`, so its responses follow the real APIs closely.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Answer, limitAnswer, outputChars } from "./answer.js";
import {
  anthropicError,
  anthropicJson,
  anthropicStreamFrames,
  anthropicUnfinishedFrames,
  anthropicUnfinishedJson,
} from "./anthropic-wire.js";
import {
  openaiError,
  openaiJson,
  openaiStreamFrames,
  openaiUnfinishedFrames,
  openaiUnfinishedJson,
} from "./openai-wire.js";
import {
  commonPrefix,
  dropResponse,
  findLast,
  flatHeaders,
  modelList,
  presentedKey,
  record,
  send,
  sendError,
  sendStatusStep,
} from "./respond.js";
import {
  describeRequest,
  type Reply,
  type ScriptContext,
  type ScriptItem,
  type ScriptStep,
  type StepFunction,
  toReply,
  type WireFormatName,
} from "./script.js";

export interface ScriptedModelOptions {
  /** Steps consumed one per model request, in arrival order across both formats; or one function for all. */
  script: ScriptItem[] | StepFunction;
  /** What to do after the last step: answer HTTP 500 and record a problem (default), or repeat the last step. */
  onExhausted?: "error" | "repeat-last";
  /** Reject requests whose Bearer / x-api-key differs, with 401. */
  requireApiKey?: string;
  /** Report token usage (default true); false exercises the client's estimate. */
  reportUsage?: boolean;
  /** Model names listed by GET /v1/models; when given, requests for other models get 404. */
  models?: string[];
  /** Default delay before each response, in ms. */
  latencyMs?: number;
  /** Delay between streamed frames, in ms (default 0), to make streaming visible in the demo. */
  chunkDelayMs?: number;
}

export interface CapturedRequest {
  path: string;
  headers: Record<string, string>;
  rawBody: string;
  /** Parsed JSON, or undefined when the body was not JSON. */
  body: unknown;
  format: WireFormatName;
  /** Date.now() on arrival. */
  at: number;
}

export interface ScriptedModel {
  /** http://127.0.0.1:PORT */
  url: string;
  /** url + "/v1", for OpenAI-compatible clients. */
  openaiBaseUrl: string;
  /** url, for Anthropic clients (which add /v1 themselves). */
  anthropicBaseUrl: string;
  /** Model requests (not GET /v1/models), in arrival order. */
  requests: CapturedRequest[];
  /** Things that went wrong on the server side (script exhausted, bad JSON, unknown path, step threw). */
  problems: string[];
  close(): Promise<void>;
}

const DEFAULT_MODELS = ["scripted"];

/** The answer's token limit as either format names it (OpenAI's newer field first). */
function maxTokensOf(fields: Record<string, unknown>): number | undefined {
  for (const key of ["max_completion_tokens", "max_tokens"]) {
    const value = fields[key];
    if (typeof value === "number" && Number.isFinite(value)) return value;
  }
  return undefined;
}

export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const requests: CapturedRequest[] = [];
  const problems: string[] = [];
  const timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  let consumed = 0;
  let toolCallCount = 0;
  let responseCount = 0;
  let closed = false;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0 || closed) return resolve();
      const entry = {
        resolve,
        timer: setTimeout(() => {
          timers.delete(entry);
          resolve();
        }, ms),
      };
      timers.add(entry);
    });

  const nextStep = async (ctx: ScriptContext): Promise<ScriptStep | string> => {
    const script = options.script;
    let item: ScriptItem | undefined;
    if (typeof script === "function") item = script;
    else {
      item = script[ctx.index];
      if (item === undefined && options.onExhausted === "repeat-last") item = script[script.length - 1];
      if (item === undefined) return `scripted model: script exhausted at request ${ctx.index + 1}`;
    }
    try {
      return typeof item === "function" ? await item(ctx) : item;
    } catch (err) {
      return `scripted model: step ${ctx.index + 1} threw: ${err instanceof Error ? err.message : String(err)}`;
    }
  };

  const handleModelRequest = async (
    req: IncomingMessage,
    res: ServerResponse,
    format: WireFormatName,
    rawBody: string,
  ) => {
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const path = req.url ?? "";
    const previous = findLast(requests, (r) => r.format === format);
    requests.push({ path, headers: flatHeaders(req), rawBody, body, format, at: Date.now() });
    const fields = body !== null && typeof body === "object" ? (body as Record<string, unknown>) : undefined;
    if (!fields) {
      problems.push(`request ${requests.length} to ${path} was not a JSON object`);
      return sendError(res, format, 400, "the request body is not a JSON object", "invalid_request_error");
    }
    if (!authorized(req, format)) return sendAuthError(req, res, format);
    const model = typeof fields.model === "string" ? fields.model : "";
    if (options.models && !options.models.includes(model)) {
      return format === "openai"
        ? send(
            res,
            404,
            openaiError(`The model \`${model}\` does not exist.`, "invalid_request_error", "model_not_found"),
          )
        : send(res, 404, anthropicError(`model: ${model}`, "not_found_error"));
    }

    const ctx: ScriptContext = { index: consumed++, body, rawBody, format, ...describeRequest(format, body) };
    const step = await nextStep(ctx);
    if (typeof step === "string") {
      problems.push(step);
      return send(res, 500, step, "text/plain; charset=utf-8");
    }
    let reply: Reply;
    try {
      reply = toReply(step);
    } catch (err) {
      const message = `scripted model: ${err instanceof Error ? err.message : String(err)}`;
      problems.push(message);
      return send(res, 500, message, "text/plain; charset=utf-8");
    }
    await wait(step.delayMs ?? options.latencyMs ?? 0);
    if (closed || res.destroyed) return;

    if (reply.kind === "status") return sendStatusStep(res, format, reply);
    const stream = fields.stream === true;
    const answer = makeAnswer(
      format,
      model || "scripted",
      reply,
      rawBody,
      previous?.rawBody,
      maxTokensOf(fields),
    );
    const includeUsage = record(fields.stream_options)?.include_usage === true;
    const unfinished = reply.kind === "unfinished";
    const frames =
      format === "openai"
        ? (unfinished ? openaiUnfinishedFrames : openaiStreamFrames)(answer, includeUsage)
        : (unfinished ? anthropicUnfinishedFrames : anthropicStreamFrames)(answer);
    const json =
      format === "openai"
        ? (unfinished ? openaiUnfinishedJson : openaiJson)(answer)
        : (unfinished ? anthropicUnfinishedJson : anthropicJson)(answer);
    if (reply.kind === "drop") return dropResponse(res, stream, frames, json);
    if (!stream) return send(res, 200, json);
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    for (const f of frames) {
      if (closed || res.destroyed) return;
      res.write(f);
      if (options.chunkDelayMs) await wait(options.chunkDelayMs);
    }
    res.end();
  };

  const makeAnswer = (
    format: WireFormatName,
    model: string,
    reply: Extract<Reply, { kind: "answer" | "drop" | "unfinished" }>,
    rawBody: string,
    previousBody: string | undefined,
    maxTokens: number | undefined,
  ): Answer => {
    responseCount++;
    const toolCalls =
      reply.kind === "answer"
        ? reply.toolCalls.map((c) => ({
            ...c,
            id: `${format === "openai" ? "call" : "toolu"}_${++toolCallCount}`,
          }))
        : [];
    const answer: Answer = limitAnswer(
      {
        id: format === "openai" ? `chatcmpl-scripted-${responseCount}` : `msg_scripted_${responseCount}`,
        model,
        text: reply.text,
        toolCalls,
        usage: null,
      },
      maxTokens,
    );
    if (options.reportUsage !== false) {
      const input = Math.ceil(rawBody.length / 4);
      // A shared prefix with the previous request stands in for a provider's prompt cache hit.
      const cached = Math.min(input, Math.floor(commonPrefix(previousBody ?? "", rawBody) / 4));
      answer.usage = { input, output: Math.ceil(outputChars(answer) / 4), cached };
    }
    return answer;
  };

  const authorized = (req: IncomingMessage, format: WireFormatName): boolean => {
    if (options.requireApiKey === undefined) return true;
    return presentedKey(req, format) === options.requireApiKey;
  };

  const sendAuthError = (req: IncomingMessage, res: ServerResponse, format: WireFormatName) => {
    // Echo the key the way real servers partly do, so clients' redaction is exercised.
    const given = presentedKey(req, format) ?? "";
    if (format === "openai") {
      const message = `Incorrect API key provided: ${given}.`;
      return send(res, 401, openaiError(message, "invalid_request_error", "invalid_api_key"));
    }
    return send(res, 401, anthropicError(`invalid x-api-key ${given}`, "authentication_error"));
  };

  const server = createServer((req, res) => {
    res.on("error", () => {});
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      route(req, res, rawBody).catch((err: unknown) => {
        problems.push(`scripted model: ${err instanceof Error ? err.message : String(err)}`);
        if (!res.headersSent) send(res, 500, "scripted model: internal error", "text/plain");
        else res.destroy();
      });
    });
  });

  const route = async (req: IncomingMessage, res: ServerResponse, rawBody: string) => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method === "POST" && path === "/v1/chat/completions") {
      return handleModelRequest(req, res, "openai", rawBody);
    }
    if (req.method === "POST" && path === "/v1/messages")
      return handleModelRequest(req, res, "anthropic", rawBody);
    if (req.method === "GET" && path === "/v1/models") {
      const anthropic =
        req.headers["anthropic-version"] !== undefined || req.headers["x-api-key"] !== undefined;
      const format = anthropic ? "anthropic" : "openai";
      if (!authorized(req, format)) return sendAuthError(req, res, format);
      return send(res, 200, modelList(options.models ?? DEFAULT_MODELS, anthropic));
    }
    problems.push(`unknown request ${req.method} ${req.url}`);
    return send(
      res,
      404,
      openaiError(`Unknown request URL: ${req.method} ${req.url}`, "invalid_request_error"),
    );
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests,
    problems,
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) return resolve();
        closed = true;
        for (const t of timers) {
          clearTimeout(t.timer);
          t.resolve();
        }
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
