// A stand-in for a provider's own host in front of the scripted model: it records each request's method,
// path, query and headers as the provider would see them, then hands the body to the scripted model's
// chat-completions (or messages) endpoint and streams its answer back. Providers put chat completions under their own
// prefixes (/openai/v1, /v1beta/openai, /inference/v1, /openai/deployments/NAME), which the scripted
// model, serving /v1 only, does not need to know.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { ScriptedModel } from "../../src/scripted/index.js";

export interface FrontRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
}

export interface ProviderFront {
  /** http://127.0.0.1:PORT */
  origin: string;
  requests: FrontRequest[];
  /** `url` with its origin replaced by this front's, its path and query kept. */
  rebase(url: string): string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startProviderFront(model: ScriptedModel): Promise<ProviderFront> {
  const requests: FrontRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://front");
      const body = await readBody(req);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        headers[k] = Array.isArray(v) ? v.join(", ") : (v ?? "");
      requests.push({
        method: req.method ?? "",
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers,
        body,
      });
      const target = url.pathname.endsWith("/chat/completions")
        ? `${model.openaiBaseUrl}/chat/completions`
        : url.pathname.endsWith("/v1/messages")
          ? `${model.url}/v1/messages`
          : undefined;
      if (!target) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no such path ${url.pathname}` } }));
        return;
      }
      // The scripted model checks no key here: the provider's own check is what the test asserts.
      const answer = await fetch(target, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "anthropic-version": headers["anthropic-version"] ?? "",
        },
        body,
      });
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
      const reader = answer.body?.getReader();
      for (;;) {
        const next = await reader?.read();
        if (!next || next.done) break;
        res.write(next.value);
      }
      res.end();
    })().catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    rebase(target: string) {
      const u = new URL(target.replaceAll("{model}", "MODEL_PLACEHOLDER"));
      return `${origin}${u.pathname}${u.search}`.replaceAll("MODEL_PLACEHOLDER", "{model}");
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
