import { createServer } from "node:net";
import { afterEach } from "vitest";
import { createModelClient } from "../../src/llm/index.js";
import type {
  ClientOptions,
  Message,
  ModelClient,
  ModelRequest,
  Provider,
  StreamEvent,
  ToolSpec,
} from "../../src/llm/types.js";
import {
  type ScriptedModel,
  type ScriptedModelOptions,
  startScriptedModel,
} from "../../src/scripted/index.js";

export const FORMATS: Provider[] = ["openai", "anthropic"];
export const MATRIX: [Provider, boolean][] = [
  ["openai", true],
  ["openai", false],
  ["anthropic", true],
  ["anthropic", false],
];

export const MARKER = ',"cache_control":{"type":"ephemeral"}';

export const IPYTHON: ToolSpec = {
  name: "ipython",
  description: "Run code in a persistent IPython kernel.",
  parameters: {
    type: "object",
    properties: { code: { type: "string", description: "Python code" } },
    required: ["code"],
  },
};

export function clientFor(
  model: ScriptedModel,
  provider: Provider,
  stream: boolean,
  extra: Partial<ClientOptions> = {},
): ModelClient {
  return createModelClient({
    provider,
    baseUrl: provider === "anthropic" ? model.anthropicBaseUrl : model.openaiBaseUrl,
    model: "scripted",
    stream,
    retryBaseMs: 5,
    retryMaxMs: 20,
    ...extra,
  });
}

export function request(messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: "You are a careful assistant.", messages, tools: [IPYTHON], ...extra };
}

export function userText(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

export async function events(
  client: ModelClient,
  req: ModelRequest,
  signal?: AbortSignal,
): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of client.stream(req, signal)) out.push(e);
  return out;
}

export function doneOf(list: StreamEvent[]): Extract<StreamEvent, { type: "done" }> {
  const last = list[list.length - 1];
  if (last?.type !== "done") throw new Error(`expected done, got ${JSON.stringify(last)}`);
  return last;
}

export function errorOf(list: StreamEvent[]): Extract<StreamEvent, { type: "error" }> {
  const last = list[list.length - 1];
  if (last?.type !== "error") throw new Error(`expected error, got ${JSON.stringify(last)}`);
  return last;
}

export function ofType<T extends StreamEvent["type"]>(list: StreamEvent[], type: T) {
  return list.filter((e): e is Extract<StreamEvent, { type: T }> => e.type === type);
}

/** A port that was just free: nothing listens on it. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** 1x1 transparent PNG. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** A start() for a test file's scripted models: each is closed after its test. */
export function useScriptedModels(): (options: ScriptedModelOptions) => Promise<ScriptedModel> {
  let model: ScriptedModel | undefined;
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });
  return async (options) => {
    model = await startScriptedModel(options);
    return model;
  };
}
