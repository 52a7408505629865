// Newline-delimited JSON-RPC 2.0 over a local socket: what clients (attach, logs, send) and session
// hosts say to each other. One JSON object per line; notifications have no id.
import type { Socket } from "node:net";
import { LineSplitter } from "../kernel/protocol.js";

export interface RpcRequest {
  jsonrpc: "2.0";
  id: number;
  method: string;
  params?: unknown;
}

export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: unknown;
}

export interface RpcResponse {
  jsonrpc: "2.0";
  id: number;
  result?: unknown;
  error?: { code: number; message: string };
}

export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

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

/** Frames lines on a socket; a line that is not JSON ends the connection (the peer is not speaking our protocol). */
export function onMessages(socket: Socket, handle: (message: RpcMessage) => void): void {
  socket.setEncoding("utf8");
  const splitter = new LineSplitter((line) => {
    if (line.trim() === "") return;
    let message: RpcMessage;
    try {
      message = JSON.parse(line) as RpcMessage;
    } catch {
      send(socket, { jsonrpc: "2.0", id: 0, error: { code: RPC.parseError, message: "not JSON" } });
      socket.destroy();
      return;
    }
    handle(message);
  });
  socket.on("data", (chunk: string) => splitter.push(chunk));
}

export function send(socket: Socket, message: RpcMessage): boolean {
  if (socket.destroyed || !socket.writable) return false;
  return socket.write(`${JSON.stringify(message)}\n`);
}

export function isRequest(m: RpcMessage): m is RpcRequest {
  return "method" in m && "id" in m && typeof m.id === "number";
}

export function isResponse(m: RpcMessage): m is RpcResponse {
  return !("method" in m) && "id" in m;
}
