// A model server on 127.0.0.1 that answers from a script, in the OpenAI and Anthropic wire formats.
// It drives the test-suite and `relm demo`, so its responses follow the real APIs closely.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { asRecord, parseJson } from "../config/records.js";
import { type Answer, endlessFrames, limitAnswer, outputChars } from "./answer.js";
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
  flatHeaders,
  modelList,
  presentedKey,
  send,
  sendError,
  sendStatusStep,
  sendTooLong,
} from "./respond.js";
import {
  responsesFailedFrames,
  responsesFailedJson,
  responsesJson,
  responsesStreamFrames,
  responsesUnfinishedFrames,
  responsesUnfinishedJson,
} from "./responses-wire.js";
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
import { checkReturnedThoughts, type Thoughts } from "./thoughts.js";

export interface ScriptedModelOptions {
  /** Steps consumed one per model request, in arrival order across both formats; or one function for all. */
  script: ScriptItem[] | StepFunction;
  /**
   * Answers some requests itself, before the script and without using one of its steps: a step, or
   * undefined to leave the request to the script. For a kind of request a whole test suite answers the
   * same way (a test rig's stock answer), so each script need not. `ctx.index` is the step the script
   * would get next.
   */
  before?: (ctx: ScriptContext) => ScriptStep | undefined;
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
  /** url + "/v1", for Responses API clients (POST /v1/responses). */
  responsesBaseUrl: string;
  /** Model requests (not GET /v1/models), in arrival order. */
  requests: CapturedRequest[];
  /** Things that went wrong on the server side (script exhausted, bad JSON, unknown path, step threw). */
  problems: string[];
  close(): Promise<void>;
}

const DEFAULT_MODELS = ["scripted"];

/** Each format's model endpoint, and the prefix of its answers' ids. */
const FORMAT_BY_PATH = new Map<string | undefined, WireFormatName>([
  ["/v1/chat/completions", "openai"],
  ["/v1/messages", "anthropic"],
  ["/v1/responses", "responses"],
]);
const ID_PREFIX: Record<WireFormatName, string> = {
  openai: "chatcmpl-scripted-",
  responses: "resp_scripted_",
  anthropic: "msg_scripted_",
};

/** The answer's token limit as either format names it (OpenAI's newer field first). */
function maxTokensOf(fields: Record<string, unknown>): number | undefined {
  for (const key of ["max_completion_tokens", "max_tokens", "max_output_tokens"]) {
    const value = fields[key];
    if (typeof value === "number" && Number.isFinite(value)) return value;
  }
  return undefined;
}

/** The streamed frames and the whole-JSON form of a reply in its wire format. */
function render(
  format: WireFormatName,
  reply: Extract<Reply, { kind: "answer" | "drop" | "unfinished" | "failed" }>,
  answer: Answer,
  includeUsage: boolean,
): { frames: string[]; json: string } {
  const unfinished = reply.kind === "unfinished";
  if (reply.kind === "failed") {
    const { code, message } = reply;
    if (format === "responses") {
      return {
        frames: responsesFailedFrames(answer, code, message),
        json: responsesFailedJson(answer, code, message),
      };
    }
    if (format === "anthropic") {
      const error = anthropicError(message, code);
      return { frames: [`event: error\ndata: ${error}\n\n`], json: error };
    }
    const error = openaiError(message, code, code);
    return { frames: [`data: ${error}\n\n`], json: error };
  }
  if (format === "responses") {
    return {
      frames: (unfinished ? responsesUnfinishedFrames : responsesStreamFrames)(answer),
      json: (unfinished ? responsesUnfinishedJson : responsesJson)(answer),
    };
  }
  if (format === "openai") {
    return {
      frames: (unfinished ? openaiUnfinishedFrames : openaiStreamFrames)(answer, includeUsage),
      json: (unfinished ? openaiUnfinishedJson : openaiJson)(answer),
    };
  }
  return {
    frames: (unfinished ? anthropicUnfinishedFrames : anthropicStreamFrames)(answer),
    json: (unfinished ? anthropicUnfinishedJson : anthropicJson)(answer),
  };
}

export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const requests: CapturedRequest[] = [];
  const problems: string[] = [];
  const timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  let consumed = 0;
  let toolCallCount = 0;
  let responseCount = 0;
  let closed = false;
  /** Reasoning the server handed out, to check that what comes back is what it sent. */
  const thoughts: Thoughts = new Map();

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
    const body = parseJson(rawBody);
    const path = req.url ?? "";
    const previous = requests.findLast((r) => r.format === format);
    requests.push({ path, headers: flatHeaders(req), rawBody, body, format, at: Date.now() });
    const fields = body !== null && typeof body === "object" ? (body as Record<string, unknown>) : undefined;
    if (!fields) {
      problems.push(`request ${requests.length} to ${path} was not a JSON object`);
      return sendError(res, format, 400, "the request body is not a JSON object", "invalid_request_error");
    }
    if (!authorized(req, format)) return sendAuthError(req, res, format);
    const model = typeof fields.model === "string" ? fields.model : "";
    if (options.models && !options.models.includes(model)) {
      return format !== "anthropic"
        ? send(
            res,
            404,
            openaiError(`The model \`${model}\` does not exist.`, "invalid_request_error", "model_not_found"),
          )
        : send(res, 404, anthropicError(`model: ${model}`, "not_found_error"));
    }

    // As the real APIs do: reasoning sent back altered (or made up) is refused before the model runs.
    const refusal = checkReturnedThoughts(format, fields, thoughts);
    if (refusal) return sendError(res, format, 400, refusal, "invalid_request_error");

    const described = { body, rawBody, format, ...describeRequest(format, body) };
    let early: ScriptStep | string | undefined;
    try {
      early = options.before?.({ index: consumed, ...described });
    } catch (err) {
      early = `scripted model: before() threw: ${err instanceof Error ? err.message : String(err)}`;
    }
    const step = early ?? (await nextStep({ index: consumed++, ...described }));
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
    if (reply.kind === "too_long") return sendTooLong(res, format, reply, Math.ceil(rawBody.length / 4));
    if (reply.kind === "raw") return writeStream(res, reply.pieces);
    const stream = fields.stream === true;
    const answer = makeAnswer(
      format,
      model || "scripted",
      reply.kind === "failed" || reply.kind === "endless"
        ? { kind: "answer", text: reply.kind === "endless" ? reply.text : "", toolCalls: [] }
        : reply,
      rawBody,
      previous?.rawBody,
      maxTokensOf(fields),
    );
    if (reply.kind === "answer") addThought(answer, reply, format, fields);
    const includeUsage = asRecord(fields.stream_options)?.include_usage === true;
    if (reply.kind === "endless") {
      const { frames } = render(format, { kind: "answer", text: reply.text, toolCalls: [] }, answer, false);
      return writeEndless(res, endlessFrames(frames, reply.text));
    }
    const { frames, json } = render(format, reply, answer, includeUsage);
    if (reply.kind === "drop") return dropResponse(res, stream, frames, json);
    if (!stream) return send(res, 200, json);
    return writeStream(res, frames);
  };

  const streamHead = (res: ServerResponse) =>
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });

  const writeStream = async (res: ServerResponse, frames: string[]) => {
    streamHead(res);
    for (const f of frames) {
      if (closed || res.destroyed) return;
      res.write(f);
      if (options.chunkDelayMs) await wait(options.chunkDelayMs);
    }
    res.end();
  };

  /** The head once, then the repeated frame until the client leaves or the server closes. */
  const writeEndless = async (res: ServerResponse, endless: { head: string[]; repeat: string }) => {
    streamHead(res);
    for (const f of endless.head) res.write(f);
    while (!closed && !res.destroyed) {
      // Backpressure: a client that reads slowly is not buried, and the event loop gets its turn.
      if (!res.write(endless.repeat)) await new Promise((resolve) => res.once("drain", resolve));
      else await new Promise((resolve) => setImmediate(resolve));
      if (options.chunkDelayMs) await wait(options.chunkDelayMs);
    }
  };

  /** What the model thought, in the request's format: Responses always (reasoning models do), Anthropic with thinking on. */
  const addThought = (
    answer: Answer,
    reply: Extract<Reply, { kind: "answer" }>,
    format: WireFormatName,
    fields: Record<string, unknown>,
  ) => {
    const n = responseCount;
    if (format === "responses" && reply.reasoning !== undefined) {
      const include = Array.isArray(fields.include) ? fields.include : [];
      const secret = Buffer.from(`scripted reasoning ${n}: ${reply.reasoning}`).toString("base64");
      answer.thought = {
        id: `rs_scripted_${n}`,
        text: reply.reasoning,
        secret,
        encrypted: include.includes("reasoning.encrypted_content"),
      };
    } else if (format === "anthropic" && asRecord(fields.thinking)?.type === "enabled") {
      // A model with thinking on always thinks first.
      const text = reply.reasoning ?? "Considering the next step.";
      answer.thought = {
        id: `thinking_${n}`,
        text,
        secret: Buffer.from(`scripted signature ${n}`).toString("base64"),
      };
      if (reply.redactedThinking !== undefined) answer.thought.redacted = reply.redactedThinking;
    }
    if (answer.thought) thoughts.set(answer.thought.id, { ...answer.thought });
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
            id: `${format === "anthropic" ? "toolu" : "call"}_${++toolCallCount}`,
          }))
        : [];
    const answer: Answer = limitAnswer(
      {
        id: `${ID_PREFIX[format]}${responseCount}`,
        model,
        text: reply.text,
        toolCalls,
        usage: null,
      },
      maxTokens,
    );
    if (format === "responses") {
      const calls: Record<string, string> = {};
      for (const call of answer.toolCalls) calls[call.id] = `fc_scripted_${call.id.slice(5)}`;
      answer.itemIds = { message: `msg_scripted_${responseCount}`, calls };
    }
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
    if (format !== "anthropic") {
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
    const format = req.method === "POST" ? FORMAT_BY_PATH.get(path) : undefined;
    if (format) return handleModelRequest(req, res, format, rawBody);
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
    responsesBaseUrl: `${url}/v1`,
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
