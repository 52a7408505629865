// fetch(), search() and look() in real `relm run` sessions (scripted model over HTTP, real kernels):
// the requests run in the host against local servers, the provider's key never reaches the kernel or the
// journal, and look() puts an image part in the next request only for a model that takes images.

import { createHash } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { allText } from "../../support/journal.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const SECRET = "brave-key-e2e-3f9a1c7d5b2e";
const MB = 1_000_000;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A 2×2 PNG made here, so the test knows its exact bytes. */
function tinyPng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = (crcTable[(c ^ x) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(2, 0);
  ihdr.writeUInt32BE(2, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

let site: string;
let other: string;
let api: string;
let bigSent = 0;
const searchRequests: { url: string; headers: IncomingMessage["headers"] }[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  const siteServer = createServer((req, res) => {
    const path = req.url ?? "/";
    const hop = /^\/r\/(\d+)$/.exec(path);
    if (hop)
      return void res
        .writeHead(302, { location: hop[1] === "0" ? "/page" : `/r/${Number(hop[1]) - 1}` })
        .end();
    if (path === "/page")
      return void res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          "<html><head><title>Local docs</title><style>p{color:STYLE_MARK}</style><script>var x='SCRIPT_MARK'</script></head>" +
            "<body><main><h2>Install</h2><p>Run <code>make</code> then read the <a href='/guide'>guide</a>.</p></main></body></html>",
        );
    if (path === "/big") {
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(50 * MB) });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pump = () => {
        while (bigSent < 50 * MB) {
          bigSent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("error", () => {});
      return pump();
    }
    if (path === "/elsewhere") return void res.writeHead(302, { location: `${other}/page` }).end();
    res.writeHead(404).end("missing");
  });
  const otherServer = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/plain" }).end("OTHER"),
  );
  // Brave's documented answer: {web: {results: [{title, url, description}]}}.
  const apiServer = createServer((req, res) => {
    searchRequests.push({ url: req.url ?? "", headers: req.headers });
    const results = [1, 2, 3].map((i) => ({
      title: `Result ${i}`,
      url: `https://example.org/${i}`,
      description: `About <strong>relm</strong> ${i}`,
    }));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ web: { results } }));
  });
  servers.push(siteServer, otherServer, apiServer);
  site = await listen(siteServer);
  other = await listen(otherServer);
  api = await listen(apiServer);
});

afterAll(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

/** The text the model was sent for each tool call, from the last request (OpenAI wire). */
function lastMessages(rig: {
  model: { requests: { body: unknown }[] };
}): { role: string; content: unknown }[] {
  const body = rig.model.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
  return body.messages;
}

describe("the web and images toolkit in a session", () => {
  it("fetch reads a local page within the limits, search goes through the host with a key the kernel never sees, look sends a PNG", async () => {
    const keyHash = createHash("sha256").update(SECRET).digest("hex");
    const rig = await startRig(
      "openai",
      {
        script: byTask({
          "ROOT: web": [
            {
              code:
                "p = fetch(SITE + '/page')\nprint('TITLE', p.title)\nprint(p)\n" +
                "for path in ['/big', '/r/9', '/elsewhere', '/r/3']:\n" +
                "    try:\n        print('OK', path, fetch(SITE + path, max_bytes=5_000_000).final_url)\n" +
                "    except fetch.Error as e:\n        print('REFUSED', path, e)\n",
            },
            {
              code:
                "import os, hashlib\nr = search('relm agent', n=2)\nprint(r)\nprint([x.url for x in r])\n" +
                "L = len(SECRET_LEN)\n" +
                "print('KEY IN ENV', any(hashlib.sha256(v[i:i+L].encode()).hexdigest() == KEY_HASH " +
                "for v in os.environ.values() for i in range(len(v) - L + 1)))\n" +
                "look('dot.png')\n",
            },
            { text: "done" },
          ],
        }),
      },
      {
        config: {
          acceptsImages: true,
          search: { provider: "brave", apiKey: SECRET, baseUrl: `${api}/res/v1/web/search` },
        },
      },
    );
    const png = tinyPng();
    writeFileSync(join(rig.cwd, "dot.png"), png);
    const sitePort = new URL(site).port;
    const result = await runRelm(
      [
        "run",
        "--allow-web",
        `127.0.0.1:${sitePort}`,
        "--var",
        `SITE=${site}`,
        "--var",
        `KEY_HASH=${keyHash}`,
        "--var",
        `SECRET_LEN=${"x".repeat(SECRET.length)}`,
        "ROOT: web",
      ],
      { env: rig.env, cwd: rig.cwd },
    );
    expect(result.code, result.stderr).toBe(0);

    const messages = lastMessages(rig);
    const tools = messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    const [fetched, searched] = tools;
    // The page as markdown: heading, inline code, an absolute link; no script or style.
    expect(fetched).toContain("TITLE Local docs");
    expect(fetched).toContain("## Install");
    expect(fetched).toContain(`Run \`make\` then read the [guide](${site}/guide).`);
    expect(fetched).not.toMatch(/SCRIPT_MARK|STYLE_MARK/);
    // 50 MB refused at the 5 MB cap before its body was read; redirects limited and each hop checked.
    expect(fetched).toMatch(/REFUSED \/big .*the body is 50 MB, over the 5 MB cap; not read/);
    expect(bigSent).toBeLessThan(20 * MB);
    expect(fetched).toMatch(/REFUSED \/r\/9 .*more than 5 redirects/);
    expect(fetched).toMatch(
      /REFUSED \/elsewhere redirected to http:\/\/127\.0\.0\.1:\d+\/page: 127\.0\.0\.1:\d+ is not in the allowed web hosts/,
    );
    expect(fetched).toContain(`OK /r/3 ${site}/page`);

    // Search: Brave's request from the host with the key; titles, URLs, snippets (tags removed) back.
    expect(searched).toContain("1. Result 1\n   https://example.org/1\n   About relm 1");
    expect(searched).toContain("['https://example.org/1', 'https://example.org/2']");
    expect(searchRequests.at(-1)?.headers["x-subscription-token"]).toBe(SECRET);
    expect(searchRequests.at(-1)?.url).toBe("/res/v1/web/search?q=relm+agent&count=2");
    expect(searched).toContain("KEY IN ENV False");
    expect(allText(join(rig.home, "sessions"))).not.toContain(SECRET);

    // look(): the PNG, byte for byte, as an image part right after the cell's result.
    expect(searched).toMatch(/\[look: dot.png attached \(PNG, 2×2, 1 KB\)/);
    const imageMessage = messages.find(
      (m) => m.role === "user" && Array.isArray(m.content) && JSON.stringify(m.content).includes("image_url"),
    );
    expect(JSON.stringify(imageMessage?.content)).toContain(
      `data:image/png;base64,${png.toString("base64")}`,
    );
  });

  it("look() says plainly when the model takes no images, and search() when no provider is set", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: no images": [
          {
            code:
              "look('dot.png')\ntry:\n    search('x')\nexcept fetch.Error as e:\n    print(type(e).__name__, e)\n" +
              "try:\n    look('missing.png')\nexcept FileNotFoundError as e:\n    print('FNF', e)\n",
          },
          echoLastCell,
        ],
      }),
    });
    writeFileSync(join(rig.cwd, "dot.png"), tinyPng());
    const result = await runRelm(["run", "ROOT: no images"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "[look: the model scripted does not take images, so dot.png was not attached. Describe it with code instead",
    );
    expect(result.stdout).toContain(
      "SearchError search(): no search provider is configured; run relm login --search",
    );
    expect(result.stdout).toMatch(/FNF look\(\): missing.png: no such file/);
    expect(rig.bodies().some((b) => b.includes("image_url") || b.includes("data:image"))).toBe(false);
  });
});

/** SOI, a JFIF APP0 and a baseline SOF0 of 640×480: a JPEG header whose size can be read (look() sends JPEG files as they are). */
function jpegHeader(): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof0 = Buffer.from([0xff, 0xc0, 0, 11, 8, 0x01, 0xe0, 0x02, 0x80, 1, 1, 0x11, 0]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof0, Buffer.from([0xff, 0xd9])]);
}

describe("look() with the Anthropic wire format", () => {
  it("sends a JPEG file as an image block of the tool result, and journals it as .jpg", async () => {
    const rig = await startRig(
      "anthropic",
      { script: byTask({ "ROOT: look at a photo": [{ code: "look('photo.jpg')" }, { text: "seen" }] }) },
      { config: { acceptsImages: true } },
    );
    const jpeg = jpegHeader();
    writeFileSync(join(rig.cwd, "photo.jpg"), jpeg);
    const result = await runRelm(["run", "ROOT: look at a photo"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    const body = rig.model.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    const results = body.messages.flatMap((m) =>
      Array.isArray(m.content) ? (m.content as { type: string; content?: unknown }[]) : [],
    );
    const toolResult = results.find((b) => b.type === "tool_result");
    expect(JSON.stringify(toolResult?.content)).toContain("[look: photo.jpg attached (JPEG, 640×480, 1 KB)");
    expect(toolResult?.content).toContainEqual({
      type: "image",
      source: { type: "base64", media_type: "image/jpeg", data: jpeg.toString("base64") },
    });
    const journal = allText(join(rig.home, "sessions"));
    expect(journal).toMatch(/"imageFiles":\["outputs\/cell-1-0\.jpg"\]/);
  });
});

const bwrap = process.platform === "linux" && existsSync("/usr/bin/bwrap");

describe.skipIf(!bwrap)("the web from a sandboxed kernel", () => {
  it("has no network of its own, yet fetch() reaches the allowed host through the host and no other", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: sandboxed web": [
          {
            code:
              "import urllib.request\ntry:\n    urllib.request.urlopen(SITE + '/page', timeout=5); print('DIRECT reached')\n" +
              "except Exception as e:\n    print('DIRECT', type(e).__name__)\n" +
              "print('FETCHED', fetch(SITE + '/page').title)\n" +
              "try:\n    fetch(OTHER + '/')\nexcept fetch.Error as e:\n    print('REFUSED', e)\n",
          },
          echoLastCell,
        ],
      }),
    });
    const result = await runRelm(
      [
        "run",
        "--sandbox",
        "--allow-web",
        `127.0.0.1:${new URL(site).port}`,
        "--var",
        `SITE=${site}`,
        "--var",
        `OTHER=${other}`,
        "ROOT: sandboxed web",
      ],
      { env: rig.env, cwd: rig.cwd },
    );
    expect(result.code, result.stderr).toBe(0);
    // No network of its own: the only way out is the host's proxy, which refuses a host nobody granted
    // (403, an HTTPError; URLError where no proxy runs).
    expect(result.stdout).toMatch(/DIRECT (HTTPError|URLError|OSError|ConnectionRefusedError)/);
    expect(result.stdout).toContain("FETCHED Local docs");
    expect(result.stdout).toMatch(
      /REFUSED 127\.0\.0\.1:\d+ is not in the allowed web hosts \(127\.0\.0\.1:\d+\)/,
    );
  });
});
