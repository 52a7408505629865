// The login picker's and /model's list of an endpoint's models, asked the way the provider's preset
// sends its key (Azure's api-key header), served over real HTTP.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { listModels } from "../../src/llm/models.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A models endpoint that answers only a request carrying `key` in `header`; records what it was sent. */
async function serveModels(
  header: string,
  key: string,
): Promise<{ base: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  server = createServer((req, res) => {
    seen.push(req.headers);
    const ok = req.headers[header] === key && !(header !== "authorization" && req.headers.authorization);
    res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
    res.end(ok ? JSON.stringify({ data: [{ id: "m-2" }, { id: "m-1" }] }) : "{}");
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

describe("listModels", () => {
  it("sends the key as a Bearer token by default", async () => {
    const { base } = await serveModels("authorization", "Bearer k-1");
    expect(await listModels("openai", base, "k-1")).toEqual({ ids: ["m-1", "m-2"], url: `${base}/models` });
  });

  it("sends the key in the header its preset names (Azure's api-key), and no Bearer token beside it", async () => {
    const { base, seen } = await serveModels("api-key", "k-2");
    expect(await listModels("openai", base, "k-2", { preset: "azure" })).toEqual({
      ids: ["m-1", "m-2"],
      url: expect.stringMatching(/\/models\?api-version=/),
    });
    expect(seen[0]?.authorization).toBeUndefined();
  });

  it("adds the preset's query (Azure's api-version) to the request", async () => {
    const { base } = await serveModels("api-key", "k-3");
    let url = "";
    server?.prependListener("request", (req) => {
      url = req.url ?? "";
    });
    await listModels("openai", base, "k-3", { preset: "azure" });
    expect(url).toMatch(/^\/v1\/models\?api-version=\d{4}-\d\d-\d\d/);
  });

  it("does not ask an address that names the model (an Azure deployment), and says to type the name", async () => {
    const { base, seen } = await serveModels("api-key", "k-4");
    const listed = await listModels("openai", `${base}/openai/deployments/{model}`, "k-4", {
      preset: "azure",
    });
    expect(listed).toEqual({ error: expect.stringMatching(/names the model.*type/) });
    expect(seen).toEqual([]);
  });
});
