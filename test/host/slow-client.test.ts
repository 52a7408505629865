// A client that reads its events more slowly than the session makes them (a terminal busy drawing a
// fast stream): the host still reads its requests (an interrupt must get through), sends it the model's
// answers whole rather than piling up their pieces, and disconnects it, saying why, past a hard limit.
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { RPC, RpcError } from "../../src/host/rpc.js";
import { SessionServer } from "../../src/host/server.js";
import { DROP_CLIENT_BYTES, SKIP_DELTAS_BYTES } from "../../src/host/slow-client.js";
import { tempDir } from "../support/cli.js";
import { eventually, until } from "../support/wait.js";

describe("a slow client of a session host", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function host(): Promise<{ server: SessionServer; calls: string[] }> {
    const home = tempDir("relm-slow-");
    const server = await SessionServer.listen(home.path, "slowtest1");
    const calls: string[] = [];
    server.serve({
      replay: (after) => after,
      call: (method) => {
        calls.push(method);
        if (method === "interrupt" || method === "status") return { ok: true };
        throw new RpcError(RPC.methodNotFound, `unknown method ${method}`);
      },
    });
    cleanups.push(async () => {
      await server.close();
      home.cleanup();
    });
    return { server, calls };
  }

  /** A raw client that attaches, then reads nothing until told; what it read is kept (its end, with `tail`). */
  async function attachAndStall(
    server: SessionServer,
    tail = Number.POSITIVE_INFINITY,
  ): Promise<{ socket: Socket; read: () => string }> {
    const socket = connect(server.path);
    cleanups.push(() => {
      socket.destroy();
    });
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      text += d;
      if (text.length > tail) text = text.slice(-tail);
    });
    socket.on("error", () => {});
    socket.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "attach", params: {} })}\n`);
    await until(() => (text.includes('"id":1') ? true : undefined));
    socket.pause();
    return { socket, read: () => text };
  }

  const request = (socket: Socket, id: number, method: string) =>
    socket.write(`${JSON.stringify({ jsonrpc: "2.0", id, method })}\n`);

  it("reads its requests while its events are backed up, and sends the answer whole instead of its pieces", async () => {
    const { server, calls } = await host();
    const client = await attachAndStall(server);
    // 20 MB of the model's streamed answer, which the client does not read.
    const piece = "x".repeat(1000);
    const pieces = 20_000;
    for (let i = 0; i < pieces; i++)
      server.publish({ type: "text_delta", turn: 1, delta: `${String(i).padStart(6, "0")}${piece}` });
    // Two requests, as the UI sends them (a status poll, then the interrupt): both are read.
    request(client.socket, 2, "status");
    expect(await eventually(() => calls.includes("status"))).toBe(true);
    request(client.socket, 3, "interrupt");
    expect(await eventually(() => calls.includes("interrupt"))).toBe(true);
    const full = Array.from({ length: pieces }, (_, i) => `${String(i).padStart(6, "0")}${piece}`).join("");
    server.publish({ type: "model_response", turn: 1, text: full, n: 5 });
    client.socket.resume();
    // Its answer comes after all that was queued before it: then the client has caught up.
    request(client.socket, 4, "status");
    await until(() => (client.read().includes('"id":4') ? true : undefined));
    // Once it has caught up, the next answer streams to it piece by piece again.
    server.publish({ type: "text_delta", turn: 2, delta: "the next answer streams again" });
    await until(() => (client.read().includes("the next answer streams again") ? true : undefined));
    const events = client
      .read()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { method?: string; params?: { type: string; delta?: string } });
    const deltas = events.filter((e) => e.params?.type === "text_delta").map((e) => e.params?.delta ?? "");
    // What it was sent piece by piece is the answer's start, without a hole; what it missed came as one
    // piece just before the response, so a client that takes the pieces as the answer has all of it.
    const streamed = deltas.slice(0, -2).join("");
    expect(full.startsWith(streamed)).toBe(true);
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed.length).toBeLessThan(SKIP_DELTAS_BYTES + 4 * 2 ** 20); // the limit, and the socket's own buffers
    expect(deltas.slice(0, -1).join("")).toBe(full);
    const types = events.map((e) => e.params?.type);
    const response = types.indexOf("model_response");
    expect(response).toBeGreaterThan(0);
    expect(events[response - 1]?.params?.delta).toBe(full.slice(streamed.length));
    expect(deltas.at(-1)).toBe("the next answer streams again");
  });

  it("is disconnected, told why, when it falls past the hard limit; other clients are not", async () => {
    const { server } = await host();
    const slow = await attachAndStall(server, 4096);
    const other = await attachAndStall(server, 4096);
    other.socket.resume();
    const output = "y".repeat(2 ** 20);
    for (let i = 0; i < DROP_CLIENT_BYTES / 2 ** 20 + 8; i++) {
      server.publish({ type: "cell_output", callId: `c${i}`, output, n: i + 2 });
      // The other client reads each one before the next comes.
      await until(() => (other.read().includes(`"n":${i + 2}}}`) ? true : undefined));
    }
    server.publish({ type: "final", text: "done", n: 100 });
    slow.socket.resume();
    await until(() => (slow.read().includes('"method":"closing"') ? true : undefined), 60_000);
    expect(slow.read()).toContain("attach again to catch up from its journal");
    expect(slow.read()).not.toContain('"type":"final"');
    await until(() => (other.read().includes('"type":"final"') ? true : undefined), 60_000);
  }, 180_000);
});
