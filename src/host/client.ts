import { connect, type Socket } from "node:net";
import { markUserError } from "../config/errors.js";
import { MAX_DECODABLE_BYTES, MAX_LINE_BYTES } from "../kernel/lines.js";
import { lockAddress } from "./lock-address.js";
import { socketPath } from "./paths.js";
import type { HostMethod, ParamsArg, ResultOf } from "./protocol.js";
import { type Frame, onMessages, RPC, RpcError, type RpcNotification, writeLine } from "./rpc.js";

/** A connection to a live session host. */
export class SessionClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Set<(n: RpcNotification) => void>();
  readonly closed: Promise<void>;

  private constructor(private readonly socket: Socket) {
    // The host is trusted to send big events (a cell's full output): only what Node cannot decode is skipped.
    onMessages(socket, (frame) => this.receive(frame), MAX_DECODABLE_BYTES);
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
    const socket = await connectWithin(socketPath(home, id), timeoutMs);
    return socket && new SessionClient(socket);
  }

  /** Calls a host method (src/host/protocol.ts): params and result typed by the method's name. */
  call<M extends HostMethod>(method: M, ...[params]: ParamsArg<M>): Promise<ResultOf<M>> {
    return this.request(method, params) as Promise<ResultOf<M>>;
  }

  /** A request by any name with any params: for what the protocol does not know (tests of the socket). */
  request(method: string, params?: unknown): Promise<unknown> {
    const id = this.nextId++;
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    return new Promise<unknown>((resolve, reject) => {
      // The host would refuse the line and close the connection: refused here, the connection stays.
      const bytes = Buffer.byteLength(line);
      if (bytes >= MAX_LINE_BYTES) {
        const mib = (n: number) => `${(n / 2 ** 20).toFixed(n < 2 ** 30 ? 1 : 0)} MiB`;
        reject(
          new RpcError(
            RPC.invalidParams,
            `the message is too large for the session host: ${mib(bytes)} encoded, at most ${mib(MAX_LINE_BYTES)}`,
          ),
        );
        return;
      }
      this.pending.set(id, { resolve, reject });
      if (!writeLine(this.socket, line)) {
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

  /** Answers to our calls and notifications; anything else (requests, frames we do not understand) is ignored. */
  private receive(frame: Frame): void {
    if (frame.kind === "response") {
      const { id, error, result } = frame.response;
      const p = typeof id === "number" ? this.pending.get(id) : undefined;
      if (!p) return;
      this.pending.delete(id as number);
      if (error) p.reject(answerError(error));
      else p.resolve(result);
      return;
    }
    if (frame.kind === "notification") for (const l of this.listeners) l(frame.notification);
  }
}

/**
 * True when a host (or the stub holding an idle host's place) lives for the session: liveness from the
 * kernel, not from a file. On Linux the session's lock is asked, never its socket: a connection to an
 * idle session's socket would revive its host (src/host/stub.ts).
 */
export async function isLive(home: string, id: string): Promise<boolean> {
  const socket = await connectWithin((await lockAddress(home, id)) ?? socketPath(home, id), 1000);
  socket?.destroy();
  return socket !== undefined;
}

/** A connection to `address`, or undefined when nothing accepts it within `timeoutMs`. */
function connectWithin(address: string, timeoutMs: number): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect(address);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(undefined);
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

/**
 * The error a host answered with. What it refused to do (-32001) or found wrong in the request (-32602)
 * is for the person who asked, said by the host in their words: a user error, not relm's bug.
 */
function answerError(error: { code: number; message: string }): RpcError {
  const failure = new RpcError(error.code, error.message);
  return error.code === RPC.refused || error.code === RPC.invalidParams ? markUserError(failure) : failure;
}
