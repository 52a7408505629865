// Everything that needs the MCP SDK, in one module that is imported on first use only
// (`await import("./sdk.js")` in connection.ts): a session that never calls an MCP server never loads it,
// and `relm --version` / `relm -p` stay as fast as before. The SDK is bundled into dist/cli by esbuild.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation/types.js";
import type { McpServer } from "./config.js";
import type { StdioTransport } from "./stdio.js";

export { ErrorCode, McpError };

export interface Opened {
  client: Client;
  transport: Transport;
  /** How it is connected: "stdio", "http" (Streamable HTTP) or "sse" (the older HTTP+SSE). */
  kind: "stdio" | "http" | "sse";
  /** The stdio server's process. */
  stdio?: StdioTransport;
}

interface OpenOptions {
  clientName: string;
  clientVersion: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The server's lists changed (notifications/…/list_changed). */
  onListChanged: () => void;
  /** The connection ended (the process exited, the HTTP session was closed). */
  onClose: () => void;
}

/**
 * The SDK checks a tool's structured result against its output schema with ajv, compiling a validator
 * for every tool as soon as the tools are listed (and building an Ajv instance with the client). Here a
 * validator is compiled the first time its tool's result is checked: listing a server with many tools
 * costs no compilation, and a client that never sees structured content never builds Ajv.
 */
class LazyValidator implements jsonSchemaValidator {
  private ajv: AjvJsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let compiled: JsonSchemaValidator<T> | undefined;
    return (input) => {
      this.ajv ??= new AjvJsonSchemaValidator();
      compiled ??= this.ajv.getValidator<T>(schema);
      return compiled(input);
    };
  }
}

function newClient(options: OpenOptions): Client {
  const client = new Client(
    { name: options.clientName, version: options.clientVersion },
    { capabilities: {}, jsonSchemaValidator: new LazyValidator() },
  );
  for (const schema of [
    ToolListChangedNotificationSchema,
    ResourceListChangedNotificationSchema,
    PromptListChangedNotificationSchema,
  ]) {
    client.setNotificationHandler(schema, async () => options.onListChanged());
  }
  return client;
}

/**
 * Completes the MCP handshake with a server: `stdio`, already spawned by the caller (a stdio server),
 * or the server's URL (Streamable HTTP, else HTTP+SSE).
 */
export async function openServer(
  server: McpServer,
  options: OpenOptions,
  stdio?: StdioTransport,
): Promise<Opened> {
  const request = { timeout: options.timeoutMs, signal: options.signal };
  if (stdio) {
    const client = newClient(options);
    client.onclose = options.onClose;
    try {
      await client.connect(stdio, request);
    } catch (error) {
      await stdio.close().catch(() => {});
      throw Object.assign(error as Error, { stdio });
    }
    return { client, transport: stdio, kind: "stdio", stdio };
  }
  const url = new URL(server.url as string);
  const requestInit = { headers: server.headers };
  if (server.transport === "http") {
    const client = newClient(options);
    const transport = new StreamableHTTPClientTransport(url, { requestInit });
    try {
      await handshake(client, transport, options);
      client.onclose = options.onClose;
      return { client, transport, kind: "http" };
    } catch (error) {
      await transport.close().catch(() => {});
      // Servers made before Streamable HTTP answer its POST with 404 or 405 and serve HTTP+SSE instead.
      const status = (error as { code?: unknown }).code;
      if (options.signal?.aborted || !(status === 404 || status === 400 || status === 405)) throw error;
    }
  }
  const client = newClient(options);
  // (The SDK sends requestInit's headers with the event stream's GET too.)
  const transport = new SSEClientTransport(url, { requestInit });
  try {
    await handshake(client, transport, options);
  } catch (error) {
    await transport.close().catch(() => {});
    throw error;
  }
  client.onclose = options.onClose;
  return { client, transport, kind: "sse" };
}

/**
 * The MCP handshake over HTTP. A message the SDK's HTTP transports cannot parse (an answer to
 * `initialize` whose result is not an object, in an event stream) is only reported to `onerror`, and
 * the request would wait for its timeout: during the handshake such an error ends it at once.
 */
async function handshake(client: Client, transport: Transport, options: OpenOptions): Promise<void> {
  const failed = new AbortController();
  let connecting = true;
  let why: string | undefined;
  transport.onerror = (error) => {
    if (!connecting || why) return;
    why = malformed(error);
    if (why) failed.abort(new Error(why));
  };
  const signal = options.signal ? AbortSignal.any([options.signal, failed.signal]) : failed.signal;
  try {
    await client.connect(transport, { timeout: options.timeoutMs, signal });
  } catch (error) {
    // The SDK turns an abort into a timeout error: say what it was.
    throw why ? Object.assign(new Error(why), { malformed: why }) : error;
  } finally {
    connecting = false;
  }
}

/** Why a transport error means the server sent something that is not an MCP message, if it does. */
function malformed(error: unknown): string | undefined {
  if (error instanceof SyntaxError) return `its answer is not JSON (${error.message})`;
  const issues = (error as { issues?: unknown })?.issues;
  if (Array.isArray(issues)) return "its answer to initialize is not a valid JSON-RPC message";
  return undefined;
}

/** Ends a connection: the HTTP session is terminated (best effort), a process is stopped. */
export async function closeServer(opened: Opened): Promise<void> {
  opened.client.onclose = undefined;
  if (opened.transport instanceof StreamableHTTPClientTransport) {
    await Promise.race([
      opened.transport.terminateSession().catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, 500).unref()),
    ]);
  }
  await opened.client.close().catch(() => {});
}
