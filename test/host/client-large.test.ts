// A session client's calls that are larger than a socket's write buffer: sent, not taken for a dead host;
// and one larger than a host takes is refused before it is sent, the connection kept.
import { afterEach, describe, expect, it } from "vitest";
import { SessionClient } from "../../src/host/client.js";
import { RPC, RpcError } from "../../src/host/rpc.js";
import { SessionServer } from "../../src/host/server.js";
import { tempDir } from "../support/cli.js";

const MB = 1000 * 1000;

describe("a session client's large calls", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  it("sends a 30 MB call whole and refuses a 70 MB one without losing the connection", async () => {
    const home = tempDir("relm-rpc-");
    const server = await SessionServer.listen(home.path, "rpclarge");
    server.serve({
      replay: (after) => after,
      call: (method, params) => {
        if (method === "size") return (params as { text: string }).text.length;
        throw new RpcError(RPC.methodNotFound, `unknown method ${method}`);
      },
    });
    const client = await SessionClient.connect(home.path, "rpclarge");
    cleanup = async () => {
      client?.close();
      await server.close();
      home.cleanup();
    };
    if (!client) throw new Error("no connection");
    expect(await client.request("size", { text: "a".repeat(30 * MB) })).toBe(30 * MB);
    await expect(client.request("size", { text: "b".repeat(70 * MB) })).rejects.toThrow(
      /the message is too large for the session host: 66\.8 MiB encoded, at most 64\.0 MiB/,
    );
    expect(await client.request("size", { text: "still" })).toBe(5);
  });
});
