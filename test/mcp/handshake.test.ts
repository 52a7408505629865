// Servers whose answer to `initialize` is not valid MCP fail the first request at once, with an error
// naming the server and what was wrong, and a stdio server is stopped for it: over stdio
// (test/support/mcp-fixture.mjs) and over Streamable HTTP (a server written here, answering in an
// event stream or as JSON). The request timeout is far longer than the test's own, so a request that
// waited for it would fail the test.

import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { McpClients, type McpServer, parseServer } from "../../src/mcp/index.js";
import { isAlive, tempDir } from "../kernel/helpers.js";
import { fixtureWithPidFile } from "../support/mcp.js";

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

async function clientsFor(name: string, raw: Record<string, unknown>) {
  const dir = await tempDir("relm-mcp-handshake-");
  const server: McpServer = parseServer(name, raw, join(dir, "mcp.json"), "user", process.env, dir);
  const clients = new McpClients(
    { servers: [server], files: [] },
    {
      env: process.env,
      cwd: dir,
      cacheDir: join(dir, "cache"),
      clientVersion: "test",
      requestTimeoutMs: 600_000,
      home: join(dir, "home"),
    },
  );
  closers.push(() => clients.close());
  return { clients, dir };
}

/** An HTTP server answering every POST with `answer(id)` for the initialize request, as SSE or JSON. */
async function httpServer(asStream: boolean, answer: (id: unknown) => unknown): Promise<string> {
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      if (req.method !== "POST") {
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(body) as { id?: unknown };
      const reply = JSON.stringify({ jsonrpc: "2.0", id: message.id, ...(answer(message.id) as object) });
      if (asStream) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(`event: message\ndata: ${reply}\n\n`);
      } else {
        res.writeHead(200, { "content-type": "application/json" }).end(reply);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
}

describe("an invalid answer to initialize", () => {
  it("over stdio: a result that is not an object fails the request now, and the process is stopped", async () => {
    const dir = await tempDir("relm-mcp-handshake-pid-");
    const pidFile = join(dir, "pid");
    const { clients } = await clientsFor("broken", fixtureWithPidFile("bad-init", pidFile));
    await expect(clients.get("broken").tools()).rejects.toThrow(
      'MCP server "broken" (command "/bin/sh") failed the MCP handshake: its answer to initialize is not valid JSON-RPC (its result is a string, not an object)',
    );
    expect(isAlive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
    expect(clients.status()[0]).toMatchObject({ state: "failed" });
  });

  it("over Streamable HTTP, in an event stream: fails now, naming the server", async () => {
    const url = await httpServer(true, () => ({ result: "not an object" }));
    const { clients } = await clientsFor("web", { url });
    await expect(clients.get("web").tools()).rejects.toThrow(
      `MCP server "web" (${url}) failed the MCP handshake: its answer to initialize is not a valid JSON-RPC message`,
    );
  });

  it("an object that is not an initialize result: the fields that are wrong are named", async () => {
    const url = await httpServer(false, () => ({ result: { capabilities: {} } }));
    const { clients } = await clientsFor("web", { url });
    await expect(clients.get("web").tools()).rejects.toThrow(
      `MCP server "web" (${url}) failed the MCP handshake: its answer is not a valid MCP result (protocolVersion: `,
    );
  });
});
