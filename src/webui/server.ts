// `relm web`'s server, on Node's http: the app's three files, the sessions list and each session's events
// as server-sent event streams, and the page's actions (send, interrupt, stop, answer a request for approval,
// set the goal or autonomy). It is a client of
// the session hosts, like the terminal UI and ACP, and keeps nothing of its own: what it shows is what the
// hosts publish (already redacted of the sessions' secrets) and what their journals and summaries say.
// Nothing else is served: no directory, no file of a session but the images its cells wrote.
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentEvent } from "../agent/core/events.js";
import { JOURNAL_FILE, sessionDir } from "../session/index.js";
import { ActionError, SessionActions } from "./actions.js";
import { admit, type Gate, hostLiteral, makeGate } from "./auth.js";
import { childDir, followChild } from "./child-stream.js";
import { learningView } from "./learning-view.js";
import { sendOutputFile } from "./outputs.js";
import { followSession } from "./session-stream.js";
import { SessionsFeed } from "./sessions-feed.js";
import { subtreeUsage } from "./subtree-usage.js";

/** The app's files, built by scripts/bundle.mjs (found from dist/cli/ and from src/webui/ alike). */
const DEFAULT_ASSETS = fileURLToPath(new URL("../../dist/webui/app/", import.meta.url));
const ASSETS: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};
const MAX_BODY_BYTES = 64 * 1024;
const KEEPALIVE_MS = 15_000;

/**
 * Scripts only from this server (none inline), no plugin, no frame around the page, images only from
 * here: a model's answer that got past the markdown sanitiser (src/webui/app/markdown.ts) still runs nothing.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

interface WebOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  host: string;
  port: number;
  token: string;
  /** Where the built app is (default: dist/webui/ of this package). */
  assets?: string;
}

interface WebServer {
  /** The address to open, with the token. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const SESSION_PATH =
  /^\/api\/sessions\/([0-9a-z]{1,64})\/(events|approvals|approve|send|interrupt|stop|steering|steer|learning|usage|outputs\/([^/]+)|agents\/([0-9a-z]{1,64})\/(events|usage))$/;

export async function startWebServer(options: WebOptions): Promise<WebServer> {
  const feed = new SessionsFeed(options.home);
  const assets = options.assets ?? DEFAULT_ASSETS;
  const streams = new Set<ServerResponse>();
  let gate: Gate | undefined;
  const server: Server = createServer((req, res) => {
    if (!gate) return void res.writeHead(503).end();
    handle(req, res, gate).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: (error as Error).message });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, gate: Gate): Promise<void> {
    const url = new URL(req.url ?? "/", "http://relm.invalid");
    const verdict = admit(gate, req, url);
    if (!verdict.ok) {
      res.writeHead(verdict.status, { "content-type": "text/plain; charset=utf-8", ...headers() });
      res.end(`relm web: ${verdict.reason}\n`);
      return;
    }
    if (verdict.setCookie) {
      const to = verdict.dropTokenFrom ?? url;
      res.writeHead(302, {
        location: to.pathname + to.search,
        "set-cookie": verdict.setCookie,
        ...headers(),
      });
      res.end();
      return;
    }
    const path = url.pathname;
    const asset = ASSETS[path];
    if (asset && req.method === "GET") {
      const body = readFileSync(join(assets, asset.file));
      res.writeHead(200, { "content-type": asset.type, ...headers() });
      res.end(body);
      return;
    }
    if (path === "/api/sessions" && req.method === "GET") return json(res, 200, await feed.list());
    if (path === "/api/sessions/stream" && req.method === "GET") {
      // The headers first: a list the feed already has is sent at once.
      let end: (() => void) | undefined;
      openStream(req, res, () => end?.());
      end = feed.subscribe((list) => res.write(`event: sessions\ndata: ${list}\n\n`));
      return;
    }
    const m = SESSION_PATH.exec(path);
    const id = m?.[1];
    if (!m || !id || !existsSync(join(sessionDir(options.home, id), JOURNAL_FILE)))
      return json(res, 404, { error: "not found" });
    const what = m[2];
    const actions = new SessionActions(options.home, id, options.env);
    if (what === "events" && req.method === "GET") return streamSession(req, res, id, url);
    if (m[4] !== undefined && m[5] === "events" && req.method === "GET")
      return streamChild(req, res, id, m[4], url);
    if ((what === "usage" || m[5] === "usage") && req.method === "GET") {
      const usage = subtreeUsage(options.home, id, m[4]);
      return usage ? json(res, 200, usage) : json(res, 404, { error: "no such sub-agent (yet)" });
    }
    if (what === "learning" && req.method === "GET")
      return json(res, 200, learningView(options.home, id, options.env));
    if (what === "approvals" && req.method === "GET")
      return json(res, 200, { pending: await actions.approvals() });
    if (what === "steering" && req.method === "GET")
      return json(res, 200, { steering: await actions.steering() });
    if (m[3] !== undefined && req.method === "GET")
      return sendOutputFile(res, options.home, id, m[3], headers());
    if (req.method !== "POST" || !["approve", "send", "interrupt", "stop", "steer"].includes(what ?? ""))
      return json(res, 405, { error: "method not allowed" });
    if (!(req.headers["content-type"] ?? "").startsWith("application/json"))
      return json(res, 415, { error: "send JSON" });
    try {
      const body = await readBody(req);
      if (what === "steer") return json(res, 200, { steering: await actions.steer(body) });
      const said =
        what === "approve"
          ? await actions.approve(body.request, body.answer)
          : what === "send"
            ? await actions.send(typeof body.text === "string" ? body.text : "")
            : what === "interrupt"
              ? await actions.interrupt()
              : await actions.stop();
      json(res, 200, { said });
    } catch (error) {
      if (error instanceof ActionError || error instanceof SyntaxError)
        json(res, 409, { error: error.message });
      else throw error;
    }
  }

  function streamSession(req: IncomingMessage, res: ServerResponse, id: string, url: URL): void {
    // Sub-agents' events (no id: they are not the session's journal) go out as one `batch` message per
    // turn of the event loop: a fan-out of a thousand says ~1,000 things a second, and each message is a
    // task of the page's. A root event first sends what is pending, so the order is kept.
    let batch: AgentEvent[] = [];
    let pending: NodeJS.Immediate | undefined;
    const flush = () => {
      if (pending) clearImmediate(pending);
      pending = undefined;
      if (batch.length === 0) return;
      res.write(`event: batch\ndata: ${JSON.stringify(batch)}\n\n`);
      batch = [];
    };
    const follow = followSession({
      home: options.home,
      id,
      env: options.env,
      after: lastEventId(req, url),
      write: (event: AgentEvent) => {
        if (event.agent) {
          batch.push(event);
          pending ??= setImmediate(flush);
          return;
        }
        flush();
        const n = "n" in event && typeof event.n === "number" ? `id: ${event.n}\n` : "";
        res.write(`${n}data: ${JSON.stringify(event)}\n\n`);
      },
      live: (on) => {
        flush();
        res.write(`event: live\ndata: ${on}\n\n`);
      },
    });
    openStream(req, res, () => {
      follow.close();
      if (pending) clearImmediate(pending);
    });
  }

  function streamChild(req: IncomingMessage, res: ServerResponse, id: string, child: string, url: URL): void {
    const dir = childDir(options.home, id, child);
    if (!dir) {
      json(res, 404, { error: "no such sub-agent (yet)" });
      return;
    }
    // The stream's headers first: the journal's events are written as soon as followChild starts.
    let follow: { close(): void } | undefined;
    openStream(req, res, () => follow?.close());
    follow = followChild({
      home: options.home,
      id,
      child,
      dir,
      env: options.env,
      after: lastEventId(req, url),
      write: (event, n) =>
        res.write(`${n === undefined ? "" : `id: ${n}\n`}data: ${JSON.stringify(event)}\n\n`),
      live: (on) => res.write(`event: live\ndata: ${on}\n\n`),
    });
  }

  function openStream(req: IncomingMessage, res: ServerResponse, end: () => void): void {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      connection: "keep-alive",
      ...headers(),
    });
    // A dropped connection is retried after a second (the browser's default is three).
    res.write("retry: 1000\n\n");
    streams.add(res);
    const keepalive = setInterval(() => res.write(": keepalive\n\n"), KEEPALIVE_MS);
    req.on("close", () => {
      clearInterval(keepalive);
      streams.delete(res);
      end();
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  gate = makeGate(options.token, { host: options.host, port });
  // While a browser opens the address (printed first: the listing's reads are synchronous in part),
  // the sessions are listed for its first page.
  setImmediate(() => void feed.prime());
  return {
    url: `http://${hostLiteral(options.host)}:${port}/?token=${options.token}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of streams) res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** EventSource sends the last id it saw when it reconnects; a page that reloads says it in ?after=. */
function lastEventId(req: IncomingMessage, url: URL): number {
  const last = Number(req.headers["last-event-id"] ?? url.searchParams.get("after") ?? 0);
  return Number.isSafeInteger(last) && last > 0 ? last : 0;
}

function headers(): Record<string, string> {
  return {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
  };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers() });
  res.end(JSON.stringify(value));
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new ActionError(`the request is too large: at most ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
