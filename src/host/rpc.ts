// Newline-delimited JSON-RPC 2.0 over a local socket: what clients (attach, logs, send) and session
// hosts say to each other. One JSON object per line; notifications have no id. Every line is classified
// into a Frame before anyone looks inside it: a peer can send anything, and nothing it sends may throw.
import type { Socket } from "node:net";
import { BoundedLineSplitter, MAX_LINE_BYTES } from "../kernel/lines.js";
import { DROP_CLIENT_BYTES } from "./slow-client.js";

/** JSON-RPC 2.0 ids: a number, a string, or null (answered as given). */
type RpcId = number | string | null;

export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: unknown;
}

export interface RpcRequest extends RpcNotification {
  id: RpcId;
}

interface RpcResponse {
  jsonrpc: "2.0";
  id: RpcId;
  result?: unknown;
  error?: { code: number; message: string };
}

type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

/** What one line turned out to be. `invalid` carries the error to answer it with (id null when unknown). */
export type Frame =
  | { kind: "request"; request: RpcRequest }
  | { kind: "notification"; notification: RpcNotification }
  | { kind: "response"; response: RpcResponse }
  | { kind: "invalid"; id: RpcId; code: number; message: string };

/** JSON-RPC error codes: the standard ones, and ours above -32000. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  refused: -32001,
} as const;

export class RpcError extends Error {
  override name = "RpcError";

  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The host will not do what was asked (now, or for this client): the message says why and what to do. */
export function refused(message: string): RpcError {
  return new RpcError(RPC.refused, message);
}

/**
 * The JSON-RPC code an error carries, judged by shape rather than instanceof: a detached host's socket is
 * served by the unbundled modules (bound before the CLI bundle loads), while its handlers throw the
 * bundle's own copy of RpcError.
 */
export function rpcErrorCode(error: unknown): number | undefined {
  if (error instanceof RpcError) return error.code;
  const e = error as { name?: unknown; code?: unknown } | null;
  if (typeof e !== "object" || e === null) return undefined;
  return e.name === "RpcError" && typeof e.code === "number" ? e.code : undefined;
}

/**
 * Unread answers past which a connection's requests are no longer read: a peer that sends requests but
 * never reads their answers cannot make them pile up without end. Derived from, and half as much again
 * as, what a slow client's events may fill before it is dropped (src/host/slow-client.ts), so a client
 * behind on its events is still heard (an interrupt) until then: 96 MiB.
 */
const PAUSE_READING_BYTES = DROP_CLIENT_BYTES + DROP_CLIENT_BYTES / 2;

/**
 * Frames lines on a socket and hands each one over classified. Reading pauses while more than
 * PAUSE_READING_BYTES wait to be written, until they are. A line longer than MAX_LINE_BYTES (a host
 * facing clients) is handed over as an invalid frame to answer, then the connection ends; with
 * `skipBeyond` (a client facing its host), a line longer than that is skipped and reading goes on.
 */
export function onMessages(socket: Socket, handle: (frame: Frame) => void, skipBeyond?: number): void {
  const maxBytes = skipBeyond ?? MAX_LINE_BYTES;
  const splitter = new BoundedLineSplitter(
    (line) => {
      if (line.trim() !== "") handle(parseFrame(line));
    },
    () => {
      if (skipBeyond !== undefined) return;
      splitter.close();
      socket.pause();
      const limit = `${Math.round(maxBytes / 2 ** 20)} MiB`;
      handle(invalid(null, RPC.invalidRequest, `line longer than ${limit}: closing the connection`));
      // Let the error reply go out, but do not wait long for a peer that does not read.
      const timer = setTimeout(() => socket.destroy(), 1000);
      timer.unref();
      socket.end(() => {
        clearTimeout(timer);
        socket.destroy();
      });
    },
    maxBytes,
  );
  let draining = false;
  socket.on("data", (chunk: Buffer) => {
    splitter.push(chunk);
    if (socket.writableLength >= PAUSE_READING_BYTES && !socket.destroyed && !draining) {
      draining = true;
      socket.pause();
      socket.once("drain", () => {
        draining = false;
        socket.resume();
      });
    }
  });
}

/** Classifies one line. Never throws: bad JSON, too deep, wrong shapes all become `invalid` frames. */
function parseFrame(line: string): Frame {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return invalid(null, RPC.parseError, "parse error: the line is not valid JSON");
  }
  if (Array.isArray(value))
    return invalid(null, RPC.invalidRequest, "batches are not supported: one request per line");
  if (typeof value !== "object" || value === null) {
    return invalid(null, RPC.invalidRequest, "invalid request: expected a JSON object");
  }
  const m = value as Record<string, unknown>;
  const hasId = Object.hasOwn(m, "id");
  if (hasId && !isRpcId(m.id))
    return invalid(null, RPC.invalidRequest, "invalid request: id must be a number, a string or null");
  const id = hasId ? (m.id as RpcId) : null;
  if (Object.hasOwn(m, "jsonrpc") && m.jsonrpc !== "2.0") {
    return invalid(id, RPC.invalidRequest, 'invalid request: jsonrpc must be "2.0"');
  }
  if (Object.hasOwn(m, "method")) {
    if (typeof m.method !== "string")
      return invalid(id, RPC.invalidRequest, "invalid request: method must be a string");
    const base = { jsonrpc: "2.0" as const, method: m.method, params: m.params };
    return hasId
      ? { kind: "request", request: { ...base, id } }
      : { kind: "notification", notification: base };
  }
  if (hasId && Object.hasOwn(m, "error")) {
    const e = m.error as { code?: unknown; message?: unknown } | null;
    const error =
      typeof e === "object" && e !== null && typeof e.code === "number" && typeof e.message === "string"
        ? { code: e.code, message: e.message }
        : { code: RPC.internal, message: "the peer sent a malformed error" };
    return { kind: "response", response: { jsonrpc: "2.0", id, error } };
  }
  if (hasId && Object.hasOwn(m, "result"))
    return { kind: "response", response: { jsonrpc: "2.0", id, result: m.result } };
  return invalid(id, RPC.invalidRequest, "invalid request: no method");
}

function isRpcId(id: unknown): id is RpcId {
  return id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

function invalid(id: RpcId, code: number, message: string): Frame {
  return { kind: "invalid", id, code, message };
}

/**
 * Writes one message; false only when the socket can take nothing (closed). A full write buffer is not a
 * failure: the message is queued behind what is there (a 30 MB prompt always fills it).
 */
export function send(socket: Socket, message: RpcMessage): boolean {
  return writeLine(socket, JSON.stringify(message));
}

/** send() for a message already encoded as one line (without its newline). */
export function writeLine(socket: Socket, line: string): boolean {
  if (socket.destroyed || !socket.writable) return false;
  socket.write(`${line}\n`);
  return true;
}

const ID_VALUE = String.raw`(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")`;
/** The id as the first member (`{"jsonrpc":"2.0","id":1,...`) or as the last (the SDK's clients write it there). */
const ID_FIRST = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}\s*,`,
);
const ID_LAST = new RegExp(String.raw`,\s*"id"\s*:\s*${ID_VALUE}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`);

/**
 * The id of a request too large to read, from its first and last few kB: only where it can only be the
 * request's own (the first or the last member of the outer object), else null.
 */
export function idOfEdges(head: string, tail: string): string | number | null {
  const found = ID_FIRST.exec(head)?.[1] ?? ID_LAST.exec(tail.replace(/\r$/, ""))?.[1];
  if (found === undefined) return null;
  try {
    const id: unknown = JSON.parse(found);
    return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
  } catch {
    return null;
  }
}
