import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionClient } from "../../src/host/client.js";
import { runDir, socketPath } from "../../src/host/paths.js";
import { RPC, RpcError } from "../../src/host/rpc.js";
import { SessionServer } from "../../src/host/server.js";
import { BoundedLineSplitter, MAX_LINE_BYTES } from "../../src/kernel/lines.js";
import { runRelm, tempDir } from "../support/cli.js";
import { type JournalLine, onlyJournal } from "../support/journal.js";
import { byTask } from "../support/router.js";
import { useRigs } from "../support/scripted.js";
import { until } from "../support/wait.js";
import { fuzzer, prng, Raw, type Reply } from "./socket-fuzz.js";

describe("session socket framing (in process)", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function host(): Promise<{ path: string; calls: string[]; home: string }> {
    const home = tempDir("relm-rpc-");
    const server = await SessionServer.listen(home.path, "rpctest1");
    const calls: string[] = [];
    server.serve({
      replay: (after, emit) => {
        for (let n = after + 1; n <= 3; n++) emit({ n, type: "user", text: `event ${n}` });
        return Math.max(after, 3);
      },
      call: (method, params) => {
        calls.push(method);
        if (method === "echo") return params;
        if (method === "boom") throw new TypeError("boom");
        // An RpcError from another copy of the module (the CLI bundle's): its code still counts.
        if (method === "foreign")
          throw Object.assign(new Error("bad text"), { name: "RpcError", code: -32602 });
        throw new RpcError(RPC.methodNotFound, `unknown method ${method}`);
      },
    });
    cleanup = async () => {
      await server.close();
      home.cleanup();
    };
    return { path: server.path, calls, home: home.path };
  }

  it("answers scalars, arrays and objects without a method with -32600, and keeps the connection", async () => {
    const raw = await Raw.open((await host()).path);
    for (const frame of ["null", "42", '"s"', "true", "[]", '[{"jsonrpc":"2.0","id":1,"method":"echo"}]']) {
      const reply = await raw.request(frame);
      expect(reply, frame).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: RPC.invalidRequest, message: expect.any(String) },
      });
    }
    expect((await raw.request('[{"id":1,"method":"echo"}]')).error?.message).toMatch(/batches/);
    // The request's own id when it has a valid one; null when the id itself is the problem.
    expect(await raw.request('{"id":5}')).toMatchObject({ id: 5, error: { code: RPC.invalidRequest } });
    expect(await raw.request('{"id":"x","method":42}')).toMatchObject({ id: "x", error: { code: -32600 } });
    expect(await raw.request('{"id":{"a":1},"method":"echo"}')).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
    expect(await raw.request('{"id":true,"method":"echo"}')).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
    expect(await raw.request('{"jsonrpc":"1.0","id":7,"method":"echo"}')).toMatchObject({
      id: 7,
      error: { code: -32600 },
    });
    // A response-shaped object is not a request either.
    expect(await raw.request('{"jsonrpc":"2.0","id":3,"result":1}')).toMatchObject({
      id: 3,
      error: { code: -32600 },
    });
    expect(await raw.request('{"jsonrpc":"2.0","id":9,"method":"echo","params":{"ok":1}}')).toEqual({
      jsonrpc: "2.0",
      id: 9,
      result: { ok: 1 },
    });
    expect(raw.ended).toBe(false);
    raw.close();
  });

  it("answers bad JSON, binary garbage and invalid UTF-8 with -32700 and stays usable", async () => {
    const raw = await Raw.open((await host()).path);
    expect(await raw.request("{")).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: RPC.parseError, message: expect.any(String) },
    });
    await raw.write(
      Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x80, 0xf0, 0x9f]), Buffer.from("\n")]),
    );
    expect((await raw.next()).error?.code).toBe(RPC.parseError);
    // A valid request whose string contains invalid UTF-8: decoded with replacement characters.
    await raw.write(
      Buffer.concat([
        Buffer.from('{"id":1,"method":"echo","params":["'),
        Buffer.from([0xff]),
        Buffer.from('"]}\n'),
      ]),
    );
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: 1, result: ["\ufffd"] });
    // A multi-byte character split across two writes is decoded whole.
    const euro = Buffer.from('{"id":2,"method":"echo","params":["€"]}\n');
    await raw.write(euro.subarray(0, 36));
    await raw.write(euro.subarray(36));
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: 2, result: ["€"] });
    expect(raw.ended).toBe(false);
    raw.close();
  });

  it("answers string and null ids with the same id and never answers notifications", async () => {
    const { path, calls } = await host();
    const raw = await Raw.open(path);
    expect(await raw.request('{"jsonrpc":"2.0","id":"abc","method":"echo","params":{"x":1}}')).toEqual({
      jsonrpc: "2.0",
      id: "abc",
      result: { x: 1 },
    });
    expect(await raw.request('{"jsonrpc":"2.0","id":null,"method":"echo","params":[2]}')).toEqual({
      jsonrpc: "2.0",
      id: null,
      result: [2],
    });
    // Two notifications, then a request: the request's answer is the next line, and no handler ran for them.
    await raw.write('{"jsonrpc":"2.0","method":"echo","params":{}}\n{"jsonrpc":"2.0","method":"stop"}\n');
    expect(await raw.request('{"jsonrpc":"2.0","id":10,"method":"echo"}')).toEqual({
      jsonrpc: "2.0",
      id: 10,
      result: null,
    });
    expect(calls).toEqual(["echo", "echo", "echo"]);
    expect(raw.lines).toHaveLength(3);
    raw.close();
  });

  it("gives -32602 for params of the wrong type and survives handlers that throw or cannot be serialized", async () => {
    const raw = await Raw.open((await host()).path);
    for (const frame of [
      '{"id":1,"method":"echo","params":42}',
      '{"id":2,"method":"echo","params":"text"}',
      '{"id":3,"method":"attach","params":{"after":"x"}}',
      '{"id":4,"method":"attach","params":{"after":-1}}',
      '{"id":5,"method":"attach","params":{"after":1.5}}',
    ]) {
      expect((await raw.request(frame)).error?.code, frame).toBe(RPC.invalidParams);
    }
    expect(await raw.request('{"id":6,"method":"boom"}')).toMatchObject({
      id: 6,
      error: { message: "boom" },
    });
    expect(await raw.request('{"id":"f","method":"foreign"}')).toMatchObject({
      id: "f",
      error: { code: RPC.invalidParams, message: "bad text" },
    });
    // 100,000 nested arrays: parsed, but echoing them back cannot be serialized (RangeError): an error reply.
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const reply = await raw.request(`{"id":7,"method":"echo","params":{"a":${deep}}}`);
    expect(reply).toMatchObject({ id: 7, error: { code: RPC.refused } });
    expect((await raw.request(deep)).error?.code).toBe(RPC.invalidRequest);
    expect((await raw.request("[".repeat(100_000))).error?.code).toBe(RPC.parseError);
    // attach still works, with or without `after`.
    expect(await raw.request('{"id":8,"method":"attach","params":{"after":2}}')).toMatchObject({
      method: "event",
      params: { n: 3 },
    });
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: 8, result: { lastN: 3 } });
    raw.close();
  });

  it("drops a connection whose line passes the cap, with an error first, and keeps serving others", async () => {
    const { path } = await host();
    const raw = await Raw.open(path);
    const chunk = Buffer.alloc(1 << 20, "x");
    let written = 0;
    // Keep sending long past the cap: the host must stop reading and close, not buffer it all.
    while (!raw.ended && !raw.socket.destroyed && written < MAX_LINE_BYTES + 32 * chunk.length) {
      await raw.write(chunk);
      written += chunk.length;
    }
    await until(() => (raw.ended ? true : undefined));
    expect(written).toBeLessThan(MAX_LINE_BYTES + 32 * chunk.length);
    expect(raw.lines).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: RPC.invalidRequest, message: expect.stringMatching(/longer than/) },
      },
    ]);
    const other = await Raw.open(path);
    expect(await other.request('{"id":1,"method":"echo","params":[1]}')).toMatchObject({
      id: 1,
      result: [1],
    });
    other.close();
  });

  it("the client ignores frames it does not understand", async () => {
    const home = tempDir("relm-rpc-");
    runDir(home.path);
    const fake = createServer((socket) => {
      socket.setEncoding("utf8");
      socket.on("data", (data: string) => {
        const id = (JSON.parse(data.split("\n")[0] as string) as { id: number }).id;
        if (id === 2) {
          socket.write('{"jsonrpc":"2.0","id":2,"error":"not an error object"}\n');
          return;
        }
        socket.write(
          [
            "null",
            "42",
            "[1,2]",
            "{not json",
            '{"id":"1","result":"a string id is not ours"}',
            '{"id":999,"result":"nobody asked"}',
            '{"jsonrpc":"2.0","id":1,"method":"host-to-client request"}',
            '{"method":17}',
            `${"[".repeat(100_000)}`,
            "\u0000\u00ff garbage",
            '{"jsonrpc":"2.0","method":"event","params":{"n":1}}',
            `{"jsonrpc":"2.0","id":${id},"result":{"ok":true}}`,
            "",
          ].join("\n"),
        );
      });
    });
    await new Promise<void>((resolve) => fake.listen(socketPath(home.path, "fakehost"), resolve));
    const client = (await SessionClient.connect(home.path, "fakehost")) as SessionClient;
    try {
      const notes: unknown[] = [];
      client.onNotification((n) => notes.push(n.params));
      expect(await client.call("status")).toEqual({ ok: true });
      await expect(client.call("status")).rejects.toThrow(/malformed error/);
      expect(notes).toEqual([{ n: 1 }]);
    } finally {
      client.close();
      await new Promise((r) => fake.close(r));
      home.cleanup();
    }
  });
});

describe("BoundedLineSplitter", () => {
  it("never holds more than its cap of an endless line, reports it once, and reads on after its newline", () => {
    const lines: string[] = [];
    let overflows = 0;
    const splitter = new BoundedLineSplitter(
      (l) => lines.push(l),
      () => overflows++,
      4 << 20,
    );
    const chunk = Buffer.alloc(1 << 20, "x");
    let most = 0;
    for (let i = 0; i < 100; i++) {
      splitter.push(chunk);
      most = Math.max(most, splitter.buffered);
    }
    expect(most).toBeLessThanOrEqual(4 << 20);
    expect(splitter.buffered).toBe(0);
    expect(overflows).toBe(1);
    splitter.push(Buffer.from("tail of the long line\nnext\n"));
    expect(lines).toEqual(["next"]);
  });

  it("accepts a line of exactly the cap, and many one-byte reads", () => {
    const lines: string[] = [];
    let overflows = 0;
    const splitter = new BoundedLineSplitter(
      (l) => lines.push(l),
      () => overflows++,
      10,
    );
    splitter.push(Buffer.from("0123456789\n01234567890\nok\n"));
    expect(lines).toEqual(["0123456789", "ok"]);
    expect(overflows).toBe(1);
    const big = new BoundedLineSplitter(
      (l) => lines.push(l),
      () => overflows++,
      1 << 20,
    );
    for (let i = 0; i < 100_000; i++) big.push(Buffer.from("y"));
    big.push(Buffer.from("\n"));
    expect(lines.at(-1)).toBe("y".repeat(100_000));
  });
});

const startRig = useRigs();

describe("a live session host under 1,000 random frames", () => {
  it("keeps its pid, answers status, takes a send, replays on attach and finishes its turns", async () => {
    const seed = Number(process.env.RELM_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`rpc fuzz seed ${seed} (rerun with RELM_FUZZ_SEED=${seed})`);
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: fuzz target": [
          // The turn stays running (in its cell) until the test creates the release file.
          () => ({
            code: `import os, time\nwhile not os.path.exists(${JSON.stringify(join(rig.cwd, "release"))}):\n    time.sleep(0.05)\nprint('released')`,
          }),
          { text: "first turn done" },
          (ctx) => ({ text: `answer to: ${ctx.lastUserText}` }),
        ],
      }),
    });
    const journal = (): JournalLine[] => {
      try {
        return onlyJournal(rig.home).lines;
      } catch {
        return [];
      }
    };
    try {
      const started = await runRelm(["run", "--detach", "TASK: fuzz target"], { env: rig.env, cwd: rig.cwd });
      expect(started.code, started.stderr).toBe(0);
      const id = started.stdout.trim();
      await until(() => (journal().some((l) => l.type === "cell") ? true : undefined));
      const statePid = () =>
        (JSON.parse(readFileSync(join(rig.home, "sessions", id, "state.json"), "utf8")) as { pid: number })
          .pid;
      const pid = statePid();

      const path = socketPath(rig.home, id);
      const replies: Reply[] = [];
      const sent = { frames: 0 };
      await Promise.all(
        Array.from({ length: 4 }, async (_, connection) => {
          // One generator per connection, so each connection's frames follow from the seed alone.
          const random = prng(seed + connection);
          const next = fuzzer(random);
          let raw = await Raw.open(path);
          for (let i = 0; i < 250; i++) {
            const frame = next();
            // Split each frame at a random point: framing must not depend on how bytes arrive.
            const cut = Math.floor(random() * frame.bytes.length);
            await raw.write(frame.bytes.subarray(0, cut));
            await raw.write(frame.bytes.subarray(cut));
            sent.frames++;
            if (frame.hangUp || raw.ended) {
              replies.push(...raw.lines);
              raw.close();
              raw = await Raw.open(path);
            }
          }
          // A last request on each connection: once it is answered, everything before it has been read.
          await raw.write('\n{"jsonrpc":"2.0","id":"last","method":"status"}\n');
          await until(() => (raw.lines.some((l) => l.id === "last" && l.result) ? true : undefined));
          replies.push(...raw.lines);
          raw.close();
        }),
      );
      expect(sent.frames).toBe(1000);

      // Every line the host wrote is well-formed JSON-RPC; it never said it was closing.
      for (const reply of replies) {
        expect(reply.jsonrpc).toBe("2.0");
        expect("id" in reply || reply.method === "event").toBe(true);
      }
      const codes = new Set(replies.map((r) => r.error?.code));
      console.log(`rpc fuzz: ${replies.length} lines back; error codes ${[...codes].join(" ")}`);
      for (const code of [RPC.parseError, RPC.invalidRequest, RPC.invalidParams, RPC.methodNotFound]) {
        expect(codes.has(code), `seed ${seed}: no reply with ${code}`).toBe(true);
      }

      // The same process still runs the session.
      expect(statePid()).toBe(pid);
      process.kill(pid, 0);
      const client = (await SessionClient.connect(rig.home, id)) as SessionClient;
      expect(((await client.call("status")) as { status: string }).status).toBe("running");
      client.close();

      writeFileSync(join(rig.cwd, "release"), "");
      await until(() => (journal().some((l) => l.type === "final") ? true : undefined));
      const send = await runRelm(["send", id, "after the storm"], { env: rig.env });
      expect(send.code, send.stderr).toBe(0);
      await until(() => (journal().filter((l) => l.type === "final").length === 2 ? true : undefined));
      const finals = journal().filter((l) => l.type === "final");
      expect(finals.map((l) => l.text)).toEqual([
        "first turn done",
        expect.stringContaining("after the storm"),
      ]);

      // attach replays the whole history, on the same host.
      const viewer = (await SessionClient.connect(rig.home, id)) as SessionClient;
      const seen: number[] = [];
      viewer.onNotification((n) => {
        const e = n.params as { n?: number; agent?: string };
        if (n.method === "event" && typeof e.n === "number" && !e.agent) seen.push(e.n);
      });
      const { lastN } = (await viewer.call("attach", { after: 0 })) as { lastN: number };
      expect(seen).toEqual(Array.from({ length: lastN }, (_, i) => i + 1));
      expect(lastN).toBe(journal().length - 1);
      viewer.close();
      expect(statePid()).toBe(pid);

      // Nothing the fuzzer sent acted as the user: no injected text, no forged message.
      const lines = journal();
      expect(lines.filter((l) => l.type === "user").map((l) => l.text)).toEqual([
        "TASK: fuzz target",
        expect.stringContaining("after the storm"),
      ]);
      expect(lines.some((l) => l.type === "message")).toBe(false);
      expect(JSON.stringify(lines)).not.toContain("INJECTED");
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
    }
  });
});
