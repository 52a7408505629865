// The allow-list's enforcement: an HTTP proxy on the host, listening on a Unix socket that is bound into
// the sandbox (a kernel with an allow-list has its own network namespace with only loopback in it; a
// small forwarder inside, python/relm/netfwd.py, relays 127.0.0.1:3128 to this socket, and HTTP_PROXY /
// HTTPS_PROXY point there). It serves CONNECT (HTTPS, and any TCP a client tunnels) and absolute-form
// HTTP requests, each only to a HOST[:PORT] on the list, matched on the name the client gave (never on
// what it resolves to). A connection is pinned to the host of its first request: later requests on it
// go to the same place whatever they say. Nothing else leaves the namespace: no DNS, no UDP, no raw
// sockets, no client that ignores the proxy settings.
import { unlinkSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { listening, listenPrivate } from "../listen.js";
import { allowed } from "./policy.js";
import type { NetRule } from "./types.js";

const HEAD_MAX = 64 * 1024;
const HEAD_TIMEOUT_MS = 30_000;

export class NetProxy {
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    /** The Unix socket's path (Linux); "" when listening on TCP. */
    readonly path: string,
  ) {}

  /** The TCP port on 127.0.0.1 (macOS, where there is no network namespace to bind a socket into). */
  get port(): number {
    const a = this.server.address();
    return typeof a === "object" && a ? a.port : 0;
  }

  /**
   * Listens on the Unix socket `path` (0600), or on 127.0.0.1 at a free port when `path` is empty;
   * every connection may reach only what `rules` allow.
   */
  static async listen(path: string, rules: readonly NetRule[]): Promise<NetProxy> {
    const server = createServer();
    const proxy = new NetProxy(server, path);
    server.on("connection", (socket) => proxy.serve(socket, rules));
    if (path) await listenPrivate(server, path);
    else await listening(server, { port: 0, host: "127.0.0.1" });
    server.unref(); // the kernels that use it keep the host alive, not the proxy
    return proxy;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    try {
      if (this.path) unlinkSync(this.path);
    } catch {
      // removed already
    }
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  }

  private serve(client: Socket, rules: readonly NetRule[]): void {
    this.track(client);
    let head = Buffer.alloc(0);
    const timer = setTimeout(() => client.destroy(), HEAD_TIMEOUT_MS);
    timer.unref();
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > HEAD_MAX) refuse(client, 431, "request head too large");
        return;
      }
      client.off("data", onData);
      clearTimeout(timer);
      client.pause();
      this.route(client, head.subarray(0, end).toString("latin1"), head.subarray(end + 4), rules);
    };
    client.on("data", onData);
  }

  private route(client: Socket, head: string, rest: Buffer, rules: readonly NetRule[]): void {
    const [requestLine = "", ...headers] = head.split("\r\n");
    const [method = "", target = "", version = "HTTP/1.1"] = requestLine.split(" ");
    let host: string;
    let port: number;
    let preface: Buffer | null = null;
    if (method === "CONNECT") {
      const at = target.lastIndexOf(":");
      host = target.slice(0, at).replace(/^\[(.*)\]$/, "$1");
      port = Number(target.slice(at + 1));
    } else {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        refuse(client, 400, "this is a proxy: send CONNECT or an absolute http:// URL");
        return;
      }
      if (url.protocol !== "http:") {
        refuse(client, 400, `${url.protocol} URLs go through CONNECT`);
        return;
      }
      host = url.hostname.replace(/^\[(.*)\]$/, "$1");
      port = url.port ? Number(url.port) : 80;
      const kept = headers.filter((h) => !/^proxy-(connection|authorization):/i.test(h));
      preface = Buffer.from(
        `${method} ${url.pathname}${url.search} ${version}\r\n${kept.join("\r\n")}\r\n\r\n`,
        "latin1",
      );
    }
    if (!host || !Number.isInteger(port) || port < 1 || port > 65535) {
      refuse(client, 400, "bad target");
      return;
    }
    if (!allowed(rules, host, port)) {
      refuse(
        client,
        403,
        `relm sandbox: ${host}:${port} is not on the --allow-net list (from Python, request("net", reason, host=...) asks the user)`,
      );
      return;
    }
    const upstream = connect({ host, port });
    this.track(upstream);
    upstream.once("connect", () => {
      if (preface) upstream.write(preface);
      else client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    upstream.once("error", (e) => {
      if (!client.destroyed && client.bytesWritten === 0)
        refuse(client, 502, `relm sandbox: ${host}:${port}: ${e.message}`);
      else client.destroy();
    });
    client.once("close", () => upstream.destroy());
    upstream.once("close", () => client.end());
  }
}

function refuse(client: Socket, status: number, text: string): void {
  const reason = {
    400: "Bad Request",
    403: "Forbidden",
    431: "Request Header Fields Too Large",
    502: "Bad Gateway",
  }[status];
  const body = `${text}\n`;
  client.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
