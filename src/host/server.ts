import { existsSync, unlinkSync } from "node:fs";
import { createServer, type Server, Socket } from "node:net";
import { UserError } from "../config/errors.js";
import { listenPrivate } from "../kernel/listen.js";
import { SessionClient } from "./client.js";
import { fdOf } from "./fd-of.js";
import { lockAddress } from "./lock-address.js";
import { runDir, socketPath } from "./paths.js";
import type { Peer } from "./peer.js";
import {
  type Frame,
  onMessages,
  RPC,
  RpcError,
  type RpcRequest,
  refused,
  rpcErrorCode,
  send,
  writeLine,
} from "./rpc.js";
import { Backlog, DROP_CLIENT_BYTES } from "./slow-client.js";

/** A sub-agent whose page attaches, and the last event of its own journal that page has. */
export interface ChildAfter {
  id: string;
  after: number;
}

interface ServerHandlers {
  /**
   * Journal events with n > after, in order (read from the journal file), then the running cell's output
   * so far; `child`: also that sub-agent's running cell's, when its journal is at or before `child.after`.
   */
  replay(after: number, emit: (event: unknown) => void, child?: ChildAfter): number;
  call(method: string, params: unknown): Promise<unknown> | unknown;
  /** Checks a request's params before anything acts on them (src/host/protocol.ts): the checked value, or throws. */
  check?(method: string, params: unknown): unknown;
  /** How many clients now follow the live events (told on every change). */
  attached?(count: number): void;
  /** Who a client is (src/host/peer.ts); without it every client acts as the user. */
  identify?(socket: Socket): Promise<Peer>;
}

/** Methods that only read what the user's files already hold: anyone may call them, unidentified. */
const READ_ONLY = new Set([
  "status",
  "info",
  "detach",
  "clients",
  "child.events",
  "checkpoints",
  "approvals",
]);
/**
 * What a client inside a relm kernel may do: read (attach too) and send a message stamped with its
 * own session. Everything else would let code a model wrote act as the person (docs/sessions.md).
 */
const KERNEL_METHODS = new Set([...READ_ONLY, "attach", "message"]);

/** The session already has a live host (another process holds its lock): this one must not touch it. */
export class SessionBusyError extends UserError {
  override name = "SessionBusyError";

  constructor(id: string) {
    super(
      `session ${id} already has a live host (another relm process is running it): ` +
        `follow it with relm attach ${id}, or stop it with relm stop ${id}`,
    );
  }
}

interface Client {
  socket: Socket;
  attached: boolean;
  /** What it has not read yet decides what it is sent (src/host/slow-client.ts). */
  backlog: Backlog;
  /** Who it is, once a method needed to know (identified once per connection). */
  peer?: Promise<Peer>;
  /** Who it said it is when it attached (told to other clients that ask). */
  label?: string;
  /** Identified as not the user: its attach does not keep the host up. */
  restricted?: boolean;
}

/**
 * A session host's socket: `$RELM_HOME/run/ID.sock`, user-only. Liveness is held by the kernel, not by a
 * file: on Linux the host also binds an abstract socket named after the session, which exists exactly
 * as long as the process, so a second host can never start for the same session and no lock goes stale.
 */
export class SessionServer {
  private readonly clients = new Set<Client>();
  private attachedCount = 0;
  /**
   * Connections accepted before serve(), not read yet (the server pauses each on accept): they are
   * answered once the session exists, or passed on unread to the process that takes the socket over.
   * Undefined while serving.
   */
  private held: Socket[] | undefined = [];
  /** Set by serve(): connections are held until then, so no request is answered without them. */
  private handlers: ServerHandlers | undefined;

  private constructor(
    private readonly server: Server,
    private readonly lock: Server | undefined,
    readonly path: string,
  ) {
    server.on("connection", (socket) => this.take(socket));
  }

  /**
   * Takes over the socket of a session from the process that held it (a stub, or an idle host handing
   * its place to one: src/host/handoff.ts): the listening socket and the lock as inherited file
   * descriptors, and connections that process accepted but never read.
   */
  static adopt(path: string, fds: { listen: number; lock?: number; clients: number[] }): SessionServer {
    const server = createServer({ pauseOnConnect: true }).listen({ fd: fds.listen });
    const lock =
      fds.lock === undefined ? undefined : createServer((s) => s.destroy()).listen({ fd: fds.lock });
    const adopted = new SessionServer(server, lock, path);
    for (const fd of fds.clients) adopted.take(new Socket({ fd, readable: true, writable: true }));
    return adopted;
  }

  static async listen(home: string, id: string): Promise<SessionServer> {
    runDir(home);
    const path = socketPath(home, id);
    const lock = await takeLock(home, id);
    const server = createServer({ pauseOnConnect: true });
    try {
      if (existsSync(path)) {
        const other = await SessionClient.connect(home, id, 500);
        if (other) {
          other.close();
          throw new SessionBusyError(id);
        }
        unlinkSync(path); // stale: its host died without cleaning up
      }
      await listenPrivate(server, path);
    } catch (error) {
      // The lock would keep this process alive (and the session taken) with nothing to serve it.
      lock?.close();
      // A failed listen names no file; the socket's lets the CLI explain it (a read-only RELM_HOME).
      const e = error as NodeJS.ErrnoException;
      if (typeof e.code === "string" && e.path === undefined && e.syscall === "listen") e.path = path;
      throw error;
    }
    return new SessionServer(server, lock, path);
  }

  /**
   * Hands the connection over to the session once it exists (the socket is bound first: it is the lock);
   * connections held until now are read from here on.
   */
  serve(handlers: ServerHandlers): void {
    this.handlers = handlers;
    const held = this.held ?? [];
    this.held = undefined;
    for (const socket of held) if (!socket.destroyed) this.accept(socket);
    if (this.attachedCount > 0) handlers.attached?.(this.attachedCount);
  }

  /**
   * Stops reading new connections (they are held, unread) so that the socket can be handed to another
   * process; false when a client is connected now (a handoff would cut it off).
   */
  hold(): boolean {
    if (this.clients.size > 0) return false;
    this.held ??= [];
    return true;
  }

  /** What a handoff passes on: the listening socket's and the lock's descriptors, and held connections. */
  descriptors(): { listen: number; lock?: number; clients: number[] } | undefined {
    const listen = fdOf(this.server);
    const lock = this.lock ? fdOf(this.lock) : undefined;
    const clients = (this.held ?? []).filter((s) => !s.destroyed).map(fdOf);
    if (listen === undefined || (this.lock && lock === undefined) || clients.includes(undefined))
      return undefined;
    return { listen, lock, clients: clients as number[] };
  }

  /** Counts attached clients again and tells the session when the number changed. */
  private noteAttached(): void {
    let count = 0;
    for (const c of this.clients) if (c.attached && !c.restricted) count += 1;
    if (count === this.attachedCount) return;
    this.attachedCount = count;
    this.handlers?.attached?.(count);
  }

  /**
   * Sends an event to every attached client (live tail). A client far behind is sent the model's answers
   * whole instead of piece by piece, and one too far behind is disconnected (src/host/slow-client.ts).
   */
  publish(event: unknown): void {
    // Encoded once for all the clients it goes to (it is sent per streamed delta).
    let line: string | undefined;
    for (const client of this.clients) {
      if (!client.attached) continue;
      const { verdict, first } = client.backlog.judge(event);
      if (verdict === "drop") this.dropSlow(client);
      else if (verdict === "send") {
        if (first) send(client.socket, { jsonrpc: "2.0", method: "event", params: first });
        line ??= JSON.stringify({ jsonrpc: "2.0", method: "event", params: event });
        writeLine(client.socket, line);
      }
    }
  }

  /** Disconnects a client that has left more than DROP_CLIENT_BYTES unread, saying why. */
  private dropSlow(client: Client): void {
    client.attached = false;
    const reason =
      `this client fell ${Math.round(DROP_CLIENT_BYTES / 2 ** 20)} MiB of events behind the session and was ` +
      "disconnected; the session goes on: attach again to catch up from its journal";
    send(client.socket, { jsonrpc: "2.0", method: "closing", params: { reason } });
    // The reason is queued behind what it has not read: a client that reads on gets it, one that does not
    // is cut off after a while (the memory is held until then).
    const timer = setTimeout(() => client.socket.destroy(), 30_000);
    timer.unref();
    client.socket.end(() => {
      clearTimeout(timer);
      client.socket.destroy();
    });
    this.noteAttached();
  }

  /** Tells attached clients the host is going away, then stops listening and removes the socket. */
  async close(reason = "the session host stopped"): Promise<void> {
    for (const socket of this.held ?? []) socket.destroy();
    for (const client of this.clients) {
      send(client.socket, { jsonrpc: "2.0", method: "closing", params: { reason } });
      client.socket.end();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.lock?.close();
    if (existsSync(this.path)) unlinkSync(this.path);
  }

  private take(socket: Socket): void {
    if (!this.held) {
      this.accept(socket);
      return;
    }
    this.held.push(socket);
    socket.on("error", () => socket.destroy());
    socket.once("close", () => {
      if (this.held) this.held = this.held.filter((s) => s !== socket);
    });
  }

  private accept(socket: Socket): void {
    const client: Client = { socket, attached: false, backlog: new Backlog(socket) };
    this.clients.add(client);
    socket.on("close", () => {
      this.clients.delete(client);
      this.noteAttached();
    });
    socket.on("error", () => socket.destroy());
    onMessages(socket, (frame) => this.receive(client, frame));
    socket.resume(); // accepted paused (pauseOnConnect): reading starts now that it is handled
  }

  /**
   * Who `client` is, when `method` needs to know (anything beyond reading, and attach); undefined
   * when it need not, or nothing can tell (then it acts as the user). Once asked, every later request
   * of the connection waits for the same answer, so requests are still handled in order.
   */
  private peerOf(client: Client, method: string): Promise<Peer> | undefined {
    if (!client.peer) {
      const identify = this.handlers?.identify;
      if (!identify || READ_ONLY.has(method)) return undefined;
      client.peer = identify(client.socket).then((peer) => {
        client.restricted = peer.kind !== "user";
        return peer;
      });
    }
    return client.peer;
  }

  /** Requests are answered; anything else a client sends that is not a notification gets an error. */
  private receive(client: Client, frame: Frame): void {
    if (frame.kind === "request") void this.answer(client, frame.request);
    else if (frame.kind === "invalid") {
      send(client.socket, {
        jsonrpc: "2.0",
        id: frame.id,
        error: { code: frame.code, message: frame.message },
      });
    } else if (frame.kind === "response") {
      const error = { code: RPC.invalidRequest, message: "invalid request: no method" };
      send(client.socket, { jsonrpc: "2.0", id: frame.response.id, error });
    }
    // Notifications are never answered, and the host defines none: they are ignored.
  }

  private async answer(client: Client, request: RpcRequest): Promise<void> {
    const { id, method } = request;
    let { params } = request;
    try {
      if (params !== undefined && params !== null && typeof params !== "object") {
        throw new RpcError(RPC.invalidParams, "invalid params: expected an object");
      }
      const handlers = this.handlers;
      if (!handlers) throw refused("the session is still starting; try again in a moment");
      const peer = await this.peerOf(client, method);
      if (peer && peer.kind !== "user") params = asKernel(peer, method, params);
      if (handlers.check) params = handlers.check(method, params);
      let result: unknown;
      if (method === "attach") {
        // Replay and switch to live in one synchronous step: no event can slip between the two.
        const after = attachAfter(params);
        const last = handlers.replay(
          after,
          (event) => send(client.socket, { jsonrpc: "2.0", method: "event", params: event }),
          attachChild(params),
        );
        client.attached = true;
        const as = (params as { as?: unknown } | undefined)?.as;
        client.label = typeof as === "string" && as.trim() ? as.trim() : undefined;
        result = { lastN: last };
      } else if (method === "clients") {
        const others = [...this.clients]
          .filter((c) => c !== client && c.attached && !c.restricted)
          .map((c) => c.label ?? "a client that did not say what it is (an editor, or an older relm)");
        result = { others };
      } else if (method === "detach") client.attached = false;
      else result = await handlers.call(method, params);
      send(client.socket, { jsonrpc: "2.0", id, result: result ?? null });
      if (method === "attach" || method === "detach") this.noteAttached();
    } catch (error) {
      const code = rpcErrorCode(error) ?? RPC.refused;
      const message = error instanceof Error ? error.message : String(error);
      send(client.socket, { jsonrpc: "2.0", id, error: { code, message } });
    }
  }
}

/**
 * What `method` may do for a client inside a kernel (or one that could not be identified): a message
 * is stamped with its own session whatever `from` it gave; methods beyond reading are refused.
 */
function asKernel(peer: Exclude<Peer, { kind: "user" }>, method: string, params: unknown): unknown {
  if (!KERNEL_METHODS.has(method)) {
    const who =
      peer.kind === "kernel"
        ? `from inside a relm kernel (process ${peer.pid}, session ${peer.session})`
        : `from a process relm could not identify (${peer.reason})`;
    throw refused(
      `${method} refused: this connection comes ${who}; a kernel may only message a session and read it ` +
        '(message, status, info, attach); from Python, send("SESSION_ID", text) sends a message as this session',
    );
  }
  if (method !== "message") return params;
  // A message must name its sender: one from a process that could not be identified (gone already,
  // as a client that writes and hangs up is, or the helper failed) would reach the model unattributed.
  if (peer.kind !== "kernel")
    throw refused(`message refused: relm could not identify the sending process (${peer.reason}); try again`);
  return { ...(params as object | null), from: peer.session };
}

/** `attach`'s `after`: absent (from the start) or a journal event number. */
function attachAfter(params: unknown): number {
  const after = (params as { after?: unknown } | null | undefined)?.after ?? 0;
  if (typeof after !== "number" || !Number.isInteger(after) || after < 0) {
    throw new RpcError(RPC.invalidParams, "invalid params: attach's after must be a whole number >= 0");
  }
  return after;
}

/** attach's `child`, as protocol.ts checked it (none where a host checks no params). */
function attachChild(params: unknown): ChildAfter | undefined {
  const child = (params as { child?: { id?: unknown; after?: unknown } } | null | undefined)?.child;
  if (typeof child?.id !== "string") return undefined;
  return { id: child.id, after: typeof child.after === "number" ? child.after : 0 };
}

/** The abstract-socket lock (Linux). Elsewhere the connect check in listen() is what keeps hosts single. */
async function takeLock(home: string, id: string): Promise<Server | undefined> {
  const name = await lockAddress(home, id);
  if (name === undefined) return undefined;
  const lock = createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    lock.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") reject(new SessionBusyError(id));
      else resolve(undefined);
    });
    lock.listen(name, () => resolve(lock));
  });
}
