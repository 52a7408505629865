import { randomBytes } from "node:crypto";
import { readdirSync, unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import path from "node:path";
import { processExists } from "../config/process.js";
import { trackFile, untrackFile } from "./host-exit.js";
import { listenPrivate, MAX_SOCKET_PATH, privateSocketDir } from "./listen.js";

/**
 * The host end of forked kernels' transport. The host cannot hand pipes to a process it did not
 * spawn, so each forked kernel connects to this Unix socket instead: once for its protocol, once for
 * its own stderr. The first line on each connection names the fork's random token and the channel;
 * a connection with an unknown token is dropped. The socket lives in a 0700 directory and is 0600,
 * so only this user can connect at all; the token then ties a connection to the fork that asked.
 */

export type ForkChannel = "protocol" | "stderr";

/** Receives a fork's connections; `head` is what arrived after the handshake line. */
type ChannelHandler = (channel: ForkChannel, socket: Socket, head: string) => void;

const HANDSHAKE_MAX = 1024;
const HANDSHAKE_TIMEOUT_MS = 10_000;

export class ForkServer {
  private readonly expected = new Map<string, ChannelHandler>();
  private closed = false;

  private constructor(
    private readonly server: Server,
    /** Absolute path of the socket. */
    readonly path: string,
  ) {
    server.on("connection", (socket) => this.handshake(socket));
  }

  /** Listens on a fresh socket in `dir` (default: a private directory under the temp dir). */
  static async open(dir?: string): Promise<ForkServer> {
    const socketDir = privateSocketDir(dir);
    removeStale(socketDir);
    const file = path.join(socketDir, `k${process.pid}-${randomBytes(4).toString("hex")}.sock`);
    if (Buffer.byteLength(file) > MAX_SOCKET_PATH) {
      throw new Error(`socket path too long for a Unix socket (${Buffer.byteLength(file)} bytes): ${file}`);
    }
    const server = createServer();
    await listenPrivate(server, file);
    trackFile(file);
    server.unref(); // an idle template must not keep the host alive; pending forks hold their own timers
    return new ForkServer(server, file);
  }

  /** Routes connections carrying `token` to `handler` until the returned function is called. */
  expect(token: string, handler: ChannelHandler): () => void {
    this.expected.set(token, handler);
    return () => {
      if (this.expected.get(token) === handler) this.expected.delete(token);
    };
  }

  /** Stops accepting connections; those already made belong to their kernels and stay open. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.expected.clear();
    this.server.close();
    try {
      unlinkSync(this.path);
    } catch {
      // Node removed it already
    }
    untrackFile(this.path);
  }

  private handshake(socket: Socket): void {
    socket.setEncoding("utf8");
    let buffered = "";
    const drop = () => socket.destroy();
    const timer = setTimeout(drop, HANDSHAKE_TIMEOUT_MS);
    timer.unref();
    socket.on("error", drop);
    const onData = (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf("\n");
      if (end < 0) {
        if (buffered.length > HANDSHAKE_MAX) drop();
        return;
      }
      socket.off("data", onData);
      socket.off("error", drop);
      clearTimeout(timer);
      const hello = parseHello(buffered.slice(0, end));
      const handler = hello && this.expected.get(hello.token);
      if (!hello || !handler) return drop();
      socket.pause(); // the handler attaches its own listeners; nothing may be lost meanwhile
      handler(hello.channel, socket, buffered.slice(end + 1));
    };
    socket.on("data", onData);
  }
}

/** Sockets of hosts that died without cleaning up (SIGKILL skips the exit hook). */
function removeStale(dir: string): void {
  for (const name of readdirSync(dir)) {
    const owner = /^k(\d+)-[0-9a-f]+\.sock$/.exec(name)?.[1];
    if (!owner || processExists(Number(owner))) continue;
    try {
      unlinkSync(path.join(dir, name));
    } catch {
      // another host got there first
    }
  }
}

/** A fresh token for one fork: 128 random bits. */
export function forkToken(): string {
  return randomBytes(16).toString("hex");
}

function parseHello(line: string): { token: string; channel: ForkChannel } | null {
  try {
    const msg = JSON.parse(line) as { token?: unknown; channel?: unknown };
    if (typeof msg.token !== "string" || (msg.channel !== "protocol" && msg.channel !== "stderr"))
      return null;
    return { token: msg.token, channel: msg.channel };
  } catch {
    return null;
  }
}
