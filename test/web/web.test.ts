// src/web in process against local HTTP servers: fetch's limits, redirects and allow-list, HTML to
// readable text, and each search provider's documented request and response shape.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Budget } from "../../src/agent/budget/budget.js";
import { KernelCallError } from "../../src/agent/kernel-api/errors.js";
import { handleWebRequest, webPolicy } from "../../src/agent/kernel-api/web.js";
import { onPath } from "../../src/cli/doctor/web.js";
import {
  getWithLimits,
  parseAllowWeb,
  readable,
  refusal,
  SEARCH_PROVIDERS,
  type SearchProvider,
  WebError,
  type WebPolicy,
  webSearch,
} from "../../src/web/index.js";
import { closedPort } from "../support/cli.js";
import { until } from "../support/wait.js";

const OPEN: WebPolicy = { allow: undefined, sandboxed: false };
const hasPdftotext = onPath("pdftotext", process.env);

/** A one-page PDF showing `text` in Helvetica, with a correct cross-reference table. */
function minimalPdf(text: string): Buffer {
  const stream = `BT /F1 24 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}
const MB = 1_000_000;

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

async function serve(handler: Handler): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => handler(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const PAGE = `<!doctype html><html><head><title>The &amp; Title</title>
<style>.x { color: STYLE_MARKER }</style><script>var s = "SCRIPT_MARKER";</script></head>
<body><nav><a href="/">NAV_MARKER</a></nav>
<main><h1>Heading</h1><p>A <b>readable</b> paragraph with <a href="/doc">a link</a>.</p>
<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
<script>document.write("SCRIPT2_MARKER")</script></main><footer>FOOTER_MARKER</footer></body></html>`;

let site: { server: Server; base: string };
let bigSent = 0;
/** Requests /slow received (it answers its headers and never ends the body). */
let slowSeen = 0;

beforeAll(async () => {
  site = await serve((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const redirect = /^\/r\/(\d+)$/.exec(url.pathname);
    if (redirect) {
      const n = Number(redirect[1]);
      res.writeHead(302, { location: n === 0 ? "/page" : `/r/${n - 1}` }).end();
    } else if (url.pathname === "/page") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    } else if (url.pathname === "/big" || url.pathname === "/big-chunked") {
      // 50 MB, written 64 KB at a time as the client reads; the length is declared for /big only.
      const headers: Record<string, string> = { "content-type": "application/octet-stream" };
      if (url.pathname === "/big") headers["content-length"] = String(50 * MB);
      res.writeHead(200, headers);
      const chunk = Buffer.alloc(64 * 1024, 97);
      let sent = 0;
      const pump = () => {
        while (sent < 50 * MB) {
          sent += chunk.length;
          bigSent = sent;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("error", () => {});
      pump();
    } else if (url.pathname === "/to-ftp") {
      res.writeHead(301, { location: "ftp://example.org/file" }).end();
    } else if (url.pathname === "/slow") {
      slowSeen += 1;
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("start");
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("not here");
    }
  });
});

afterAll(() => {
  site.server.closeAllConnections();
  site.server.close();
});

const get = (path: string, extra: Partial<Parameters<typeof getWithLimits>[1]> = {}) =>
  getWithLimits(`${site.base}${path}`, {
    maxBytes: 5 * MB,
    timeoutMs: 10_000,
    maxRedirects: 5,
    policy: OPEN,
    ...extra,
  });

describe("fetch in the host", () => {
  it("turns an HTML page into readable markdown without scripts, styles or navigation", async () => {
    const got = await get("/page");
    const page = await readable(got.body, got.contentType, got.finalUrl);
    expect(page.kind).toBe("html");
    expect(page.title).toBe("The & Title");
    expect(page.text).toContain("# Heading");
    expect(page.text).toContain(`A **readable** paragraph with [a link](${site.base}/doc).`);
    expect(page.text).toMatch(/\| k \| v \|/);
    for (const marker of ["SCRIPT_MARKER", "SCRIPT2_MARKER", "STYLE_MARKER", "NAV_MARKER", "FOOTER_MARKER"])
      expect(page.text).not.toContain(marker);
  });

  it("refuses a declared 50 MB body at the cap without reading it", async () => {
    bigSent = 0;
    await expect(get("/big", { maxBytes: 5 * MB })).rejects.toThrow(/50 MB, over the 5 MB cap; not read/);
    expect(bigSent).toBeLessThan(20 * MB);
  });

  it("stops reading an undeclared body at the cap", async () => {
    bigSent = 0;
    await expect(get("/big-chunked", { maxBytes: 1 * MB })).rejects.toThrow(/passed the 1 MB cap/);
    expect(bigSent).toBeLessThan(20 * MB);
  });

  it("follows redirects up to the limit, checking each hop, and refuses beyond it", async () => {
    const ok = await get("/r/4");
    expect(ok.status).toBe(200);
    expect(ok.finalUrl).toBe(`${site.base}/page`);
    expect(ok.redirects).toHaveLength(5);
    await expect(get("/r/5")).rejects.toThrow(/more than 5 redirects/);
    await expect(get("/to-ftp")).rejects.toThrow(
      /redirected to ftp:\/\/example.org\/file: ftp: URLs are not fetched/,
    );
  });

  it("holds the allow-list on every hop, and the sandbox allows nothing unlisted", async () => {
    const port = new URL(site.base).port;
    const listed: WebPolicy = { allow: parseAllowWeb([`127.0.0.1:${port}`]), sandboxed: true };
    expect((await get("/r/1", { policy: listed })).status).toBe(200);
    const elsewhere: WebPolicy = { allow: parseAllowWeb(["docs.python.org,127.0.0.1:1"]), sandboxed: false };
    await expect(get("/page", { policy: elsewhere })).rejects.toThrow(
      /127\.0\.0\.1:\d+ is not in the allowed web hosts/,
    );
    await expect(get("/page", { policy: { allow: undefined, sandboxed: true } })).rejects.toThrow(
      /runs in the sandbox and no web host is allowed; start relm with --allow-web 127.0.0.1/,
    );
    expect(
      refusal(new URL("https://docs.python.org/3/"), { allow: ["python.org"], sandboxed: true }),
    ).toBeUndefined();
    expect(refusal(new URL("https://evilpython.org/"), { allow: ["python.org"], sandboxed: true })).toMatch(
      /not in/,
    );
    expect(refusal(new URL("file:///etc/passwd"), OPEN)).toMatch(/only http and https/);
    expect(() => parseAllowWeb(["https://x.org/path"])).toThrow(/not a host name/);
  });

  it("an agent in a sandbox with its network closed allows no unlisted host; one with --allow-net * is open", () => {
    const tree = { options: { secrets: [], web: {} } };
    expect(webPolicy({ tree, sandbox: undefined })).toEqual({ allow: undefined, sandboxed: false });
    expect(webPolicy({ tree, sandbox: { net: { kind: "none" } } }).sandboxed).toBe(true);
    expect(webPolicy({ tree, sandbox: { net: { kind: "list" } } }).sandboxed).toBe(true);
    expect(webPolicy({ tree, sandbox: { net: { kind: "all" } } }).sandboxed).toBe(false);
    const listed = { options: { secrets: [], web: { allow: ["x.org"] } } };
    expect(webPolicy({ tree: listed, sandbox: undefined }).allow).toEqual(["x.org"]);
  });

  it("gives up at its timeout", async () => {
    await expect(get("/slow", { timeoutMs: 300 })).rejects.toThrow(/no complete answer within 0.3 s/);
  });

  it("says plainly that a connection was refused (fetch's own error is 'fetch failed')", async () => {
    const port = await closedPort();
    const refused = getWithLimits(`http://127.0.0.1:${port}/x`, {
      maxBytes: MB,
      timeoutMs: 10_000,
      maxRedirects: 5,
      policy: OPEN,
    });
    await expect(refused).rejects.toThrow(
      new WebError(`http://127.0.0.1:${port}/x: the connection was refused`),
    );
  });

  it.skipIf(!hasPdftotext)("turns a PDF into text with pdftotext", async () => {
    const page = await readable(minimalPdf("Hello from a PDF page"), "application/pdf", "u");
    expect(page.kind).toBe("pdf");
    expect(page.text).toContain("Hello from a PDF page");
    // No type at all: recognised by its first bytes.
    expect((await readable(minimalPdf("Sniffed"), "", "u")).text).toContain("Sniffed");
  });

  it("refuses binary bodies as text and points to fetch.raw", async () => {
    await expect(readable(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]), "image/png", "u")).rejects.toThrow(
      /image\/png .* not text; fetch.raw\(url\) returns its bytes/,
    );
    const text = await readable(Buffer.from('{"a": 1}'), "application/json", "u");
    expect(text).toEqual({ kind: "text", text: '{"a": 1}' });
  });
});

/** Each provider's documented answer, with hits "Title N", "https://example.org/N", "Snippet N". */
function answerOf(provider: SearchProvider, n: number): unknown {
  const hits = Array.from({ length: n }, (_, i) => i + 1);
  switch (provider) {
    case "searxng":
      return {
        query: "q",
        results: hits.map((i) => ({
          title: `Title ${i}`,
          url: `https://example.org/${i}`,
          content: `Snippet ${i}`,
          engine: "x",
        })),
      };
    case "brave":
      return {
        type: "search",
        web: {
          type: "search",
          results: hits.map((i) => ({
            title: `Title ${i}`,
            url: `https://example.org/${i}`,
            description: `<strong>Snippet</strong> ${i}`,
          })),
        },
      };
    case "tavily":
      return {
        query: "q",
        results: hits.map((i) => ({
          title: `Title ${i}`,
          url: `https://example.org/${i}`,
          content: `Snippet ${i}`,
          score: 0.9,
        })),
      };
    case "serper":
      return {
        searchParameters: { q: "q" },
        organic: hits.map((i) => ({
          title: `Title ${i}`,
          link: `https://example.org/${i}`,
          snippet: `Snippet ${i}`,
          position: i,
        })),
      };
    case "exa":
      return {
        requestId: "r",
        results: hits.map((i) => ({
          id: `https://example.org/${i}`,
          title: `Title ${i}`,
          url: `https://example.org/${i}`,
          highlights: [`Snippet ${i}`],
        })),
      };
  }
}

describe("search providers", () => {
  const KEY = "search-key-5b8e1f0c9a";
  let seen: { method: string; path: string; headers: IncomingMessage["headers"]; body: string }[] = [];
  let api: { server: Server; base: string };

  beforeAll(async () => {
    api = await serve((req, res, body) => {
      seen.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      const provider = (req.url ?? "").split("/")[1] as SearchProvider;
      if (req.url?.includes("denied")) return void res.writeHead(401).end('{"error":"bad key"}');
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answerOf(provider, 8)));
    });
  });
  afterAll(() => api.server.close());

  it.each(SEARCH_PROVIDERS)(
    "%s: the documented request, and titles, URLs and snippets back",
    async (provider) => {
      seen = [];
      const hits = await webSearch(
        { provider, apiKey: KEY, baseUrl: `${api.base}/${provider}/search` },
        "relm agent",
        3,
        {
          timeoutMs: 10_000,
        },
      );
      expect(hits).toEqual(
        [1, 2, 3].map((i) => ({
          title: `Title ${i}`,
          url: `https://example.org/${i}`,
          snippet: `Snippet ${i}`,
        })),
      );
      const req = seen[0];
      if (!req) throw new Error("no request");
      const body = req.body ? JSON.parse(req.body) : undefined;
      switch (provider) {
        case "searxng":
          expect(req.method).toBe("GET");
          expect(req.path).toBe("/searxng/search?q=relm+agent&format=json");
          break;
        case "brave":
          expect(req.method).toBe("GET");
          expect(req.path).toBe("/brave/search?q=relm+agent&count=3");
          expect(req.headers["x-subscription-token"]).toBe(KEY);
          break;
        case "tavily":
          expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
          expect(body).toEqual({ query: "relm agent", max_results: 3 });
          break;
        case "serper":
          expect(req.headers["x-api-key"]).toBe(KEY);
          expect(body).toEqual({ q: "relm agent", num: 3 });
          break;
        case "exa":
          expect(req.headers["x-api-key"]).toBe(KEY);
          expect(body).toMatchObject({ query: "relm agent", numResults: 3 });
          break;
      }
    },
  );

  it("says what is wrong: no provider, no key, a refused key", async () => {
    await expect(webSearch(undefined, "q", 5, { timeoutMs: 1000 })).rejects.toThrow(
      /no search provider is configured; run relm login --search/,
    );
    await expect(webSearch({ provider: "brave" }, "q", 5, { timeoutMs: 1000 })).rejects.toThrow(
      /brave needs an API key/,
    );
    await expect(webSearch({ provider: "searxng" }, "q", 5, { timeoutMs: 1000 })).rejects.toThrow(
      /SearXNG needs the URL/,
    );
    const denied = webSearch(
      { provider: "serper", apiKey: KEY, baseUrl: `${api.base}/serper/denied` },
      "q",
      5,
      { timeoutMs: 10_000 },
    );
    await expect(denied).rejects.toThrow(WebError);
    await expect(denied).rejects.toThrow(/HTTP 401; check the key with relm login --search/);
  });
});

describe("the host's web.* calls", () => {
  const agent = (budget: Budget, web = {}) => ({
    id: "agent-1",
    budget,
    tree: { options: { secrets: ["a-secret-value-123"], web } },
    sandbox: undefined,
  });

  it("stop at the --max-time deadline with a budget error, and when Python cancels them", async () => {
    const tight = agent(new Budget({ maxTimeMs: 400 }));
    const late = handleWebRequest(tight, "web.fetch", { url: `${site.base}/slow`, timeout: 60 });
    await expect(late).rejects.toThrow(KernelCallError);
    await expect(late).rejects.toMatchObject({
      code: "budget",
      message: expect.stringMatching(/--max-time/),
    });

    const open = agent(new Budget({}));
    const before = slowSeen;
    const pending = handleWebRequest(open, "web.fetch", {
      url: `${site.base}/slow`,
      timeout: 60,
      call: "c1",
    });
    // Cancelled once the server has it, as an interrupted cell would.
    await until(() => slowSeen > before || undefined);
    await handleWebRequest(open, "web.cancel", { call: "c1" });
    await expect(pending).rejects.toMatchObject({ code: "web", message: "fetch(): cancelled" });
  });

  it("answer a page, a usage error, and never echo a secret", async () => {
    const a = agent(new Budget({}));
    const page = (await handleWebRequest(a, "web.fetch", { url: `${site.base}/page` })) as Record<
      string,
      unknown
    >;
    expect(page).toMatchObject({
      status: 200,
      kind: "html",
      title: "The & Title",
      final_url: `${site.base}/page`,
    });
    await expect(
      handleWebRequest(a, "web.fetch", { url: `${site.base}/page`, max_bytes: -1 }),
    ).rejects.toMatchObject({
      code: "usage",
    });
    const secretUrl = `${site.base}/nothing?token=a-secret-value-123`;
    const missing = (await handleWebRequest(a, "web.fetch", { url: secretUrl })) as Record<string, unknown>;
    expect(missing.status).toBe(404);
    expect(JSON.stringify(missing)).not.toContain("a-secret-value-123");
  });
});
