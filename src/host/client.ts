import { connect, type Socket } from "node:net";
import { socketPath } from "./paths.js";
import { isResponse, onMessages, RpcError, type RpcMessage, type RpcNotification, send } from "./rpc.js";

/** A connection to a live session host. */
export class SessionClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Set<(n: RpcNotification) => void>();
  readonly closed: Promise<void>;

  private constructor(private readonly socket: Socket) {
    onMessages(socket, (m) => this.receive(m));
    this.closed = new Promise((resolve) => {
      socket.on("close", () => {
        for (const p of this.pending.values())
          p.reject(new RpcError(-32000, "the session host closed the connection"));
        this.pending.clear();
        resolve();
      });
    });
    socket.on("error", () => {});
  }

  /** Connects to the host of session `id`; undefined when no host is listening (not live). */
  static async connect(home: string, id: string, timeoutMs = 2000): Promise<SessionClient | undefined> {
    const path = socketPath(home, id);
    return new Promise((resolve) => {
      const socket = connect(path);
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(undefined);
      }, timeoutMs);
      socket.once("connect", () => {
        clearTimeout(timer);
        resolve(new SessionClient(socket));
      });
      socket.once("error", () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
  }

  call<T = unknown>(method: string, params?: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      if (!send(this.socket, { jsonrpc: "2.0", id, method, params })) {
        this.pending.delete(id);
        reject(new RpcError(-32000, "the session host is not reachable"));
      }
    });
  }

  onNotification(listener: (n: RpcNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }

  private receive(message: RpcMessage): void {
    if (isResponse(message)) {
      const p = this.pending.get(message.id);
      if (!p) return;
      this.pending.delete(message.id);
      if (message.error) p.reject(new RpcError(message.error.code, message.error.message));
      else p.resolve(message.result);
      return;
    }
    if ("method" in message && !("id" in message)) for (const l of this.listeners) l(message);
  }
}

/** True when a host is listening on the session's socket: liveness from the kernel, not from a file. */
export async function isLive(home: string, id: string): Promise<boolean> {
  const client = await SessionClient.connect(home, id, 1000);
  client?.close();
  return client !== undefined;
}
