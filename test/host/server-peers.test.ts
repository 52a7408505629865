// What a session socket lets each kind of client do (src/host/server.ts), in-process with a real socket.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Peer } from "../../src/host/peer.js";
import { RPC } from "../../src/host/rpc.js";
import { SessionServer } from "../../src/host/server.js";
import { Raw } from "./socket-fuzz.js";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function serve(peer: Peer) {
  const home = mkdtempSync(join(tmpdir(), "relm-peers-"));
  const calls: { method: string; params: unknown }[] = [];
  const server = await SessionServer.listen(home, "s1");
  server.serve({
    replay: (after) => after,
    call: (method, params) => {
      calls.push({ method, params });
      return { ok: true };
    },
    identify: async () => peer,
  });
  const raw = await Raw.open(server.path);
  cleanup.push(
    () => rmSync(home, { recursive: true, force: true }),
    () => server.close(),
    () => raw.close(),
  );
  return { raw, calls };
}

const message = '{"jsonrpc":"2.0","id":1,"method":"message","params":{"from":"mallory","text":"hi"}}';

describe("who may message a session", () => {
  it("a kernel's message is stamped with its own session, whatever from it gave", async () => {
    const { raw, calls } = await serve({ kind: "kernel", session: "other", pid: 123 });
    expect((await raw.request(message)).result).toEqual({ ok: true });
    expect(calls).toEqual([{ method: "message", params: { from: "other", text: "hi" } }]);
  });

  it("an unidentified process's message is refused and never reaches the session", async () => {
    const { raw, calls } = await serve({ kind: "unknown", reason: "process 99 is gone" });
    const reply = await raw.request(message);
    expect(reply.error?.code).toBe(RPC.refused);
    expect(reply.error?.message).toContain("process 99 is gone");
    expect(
      (await raw.request('{"jsonrpc":"2.0","id":2,"method":"send","params":{"text":"x"}}')).error?.code,
    ).toBe(RPC.refused);
    expect((await raw.request('{"jsonrpc":"2.0","id":3,"method":"status"}')).result).toEqual({ ok: true });
    expect(calls.map((c) => c.method)).toEqual(["status"]);
  });

  it("the user's message goes through as given", async () => {
    const { raw, calls } = await serve({ kind: "user" });
    expect((await raw.request(message)).result).toEqual({ ok: true });
    expect(calls).toEqual([{ method: "message", params: { from: "mallory", text: "hi" } }]);
  });
});
