// The stdio transport of `relm mcp serve`. relm's own rather than the SDK's StdioServerTransport, which
// closes the connection (so the server exits 0, answering nothing) on a frame over 10 MB — less than one
// variable the tools accept — and drops a request that does not match its schema (`"params": null`)
// without answering it. Here every request is answered: a frame too large, not JSON, or not a valid
// JSON-RPC request gets a JSON-RPC error (with the request's id when it can be found), and the server
// reads on. Frames are split in linear time with a bounded buffer (kernel/lines.ts).

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { idOfEdges } from "../host/rpc.js";
import { BoundedLineSplitter, MAX_LINE_BYTES, writeJsonLine } from "../kernel/lines.js";

/** The largest request accepted (the whole JSON-RPC frame, variables included): docs/mcp-server.md. */
const MAX_FRAME_BYTES = MAX_LINE_BYTES;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

type Id = string | number | null;

export class ServerStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;
  private readonly stdin = process.stdin;
  private readonly stdout = process.stdout;
  private readonly lines = new BoundedLineSplitter(
    (line) => this.deliver(line),
    () => {},
    MAX_FRAME_BYTES,
    ({ head, tail }) => this.refuseTooLarge(head, tail),
  );

  async start(): Promise<void> {
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStdinError);
    this.stdin.once("end", this.onEnd);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.closed ? Promise.resolve() : writeJsonLine(this.stdout, message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStdinError);
    this.stdin.off("end", this.onEnd);
    this.lines.close();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.lines.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  };

  private readonly onStdinError = (error: Error) => this.onerror?.(error);

  private readonly onEnd = () => void this.close();

  private deliver(line: string): void {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.answerError(null, PARSE_ERROR, "parse error: the frame is not valid JSON");
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) {
      this.onmessage?.(parsed.data);
      return;
    }
    const m = value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
    // A response or notification that is malformed has no one to answer; a request always does.
    if (typeof m.method === "string" && !Object.hasOwn(m, "id")) {
      this.onerror?.(new Error(`a malformed notification ${m.method} was ignored`));
      return;
    }
    const id = validId(m.id) ? m.id : null;
    if (Object.hasOwn(m, "result") || Object.hasOwn(m, "error")) {
      this.onerror?.(new Error("a malformed response was ignored"));
      return;
    }
    this.answerError(id, INVALID_REQUEST, `invalid request: ${describeIssue(m)}`);
  }

  private refuseTooLarge(head: string, tail: string): void {
    const mib = Math.round(MAX_FRAME_BYTES / 2 ** 20);
    this.answerError(
      idOfEdges(head, tail),
      INVALID_REQUEST,
      `request too large: one message may be at most ${mib} MiB; put less in its variables`,
    );
  }

  private answerError(id: Id, code: number, message: string): void {
    void this.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}

function validId(id: unknown): id is string | number {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/** What is wrong with a request the schema refused, in the words a client's developer needs. */
function describeIssue(m: Record<string, unknown>): string {
  if (m.jsonrpc !== "2.0") return 'jsonrpc must be "2.0"';
  if (!validId(m.id)) return "id must be a string or a number";
  if (typeof m.method !== "string") return "method must be a string";
  if (Object.hasOwn(m, "params")) return "params must be an object when given";
  return "not a JSON-RPC request";
}
