// `relm mcp serve` facing frames at and past its limits: every request is answered, and the server reads
// on. The official SDK client where the request is one a client would send; raw frames on stdio for the
// malformed and oversize ones, which no SDK client writes.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { idOfEdges } from "../../../src/host/rpc.js";
import { RELM_BIN } from "../../support/cli.js";
import { byTask } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();
const MiB = 1024 * 1024;

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

interface Reply {
  id: string | number | null;
  result?: ToolResult & { tools?: unknown[] };
  error?: { code: number; message: string };
}

/** `relm mcp serve` on raw stdio: frames written as given, replies read line by line. */
class RawServer {
  readonly replies: Reply[] = [];
  private readonly child: ChildProcessWithoutNullStreams;
  private rest = "";
  exitCode: number | null | undefined;

  constructor(rig: Rig) {
    this.child = spawn(process.execPath, [RELM_BIN, "mcp", "serve"], { env: rig.env, cwd: rig.cwd });
    this.child.stdout.setEncoding("utf8").on("data", (d: string) => {
      const lines = (this.rest + d).split("\n");
      this.rest = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) this.replies.push(JSON.parse(line) as Reply);
    });
    this.child.stderr.resume();
    // A server that died must fail the test by its missing replies, not by an unhandled EPIPE.
    this.child.stdin.on("error", () => {});
    this.child.on("exit", (code) => {
      this.exitCode = code;
    });
  }

  write(frame: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.stdin.write(`${frame}\n`)) resolve();
      else this.child.stdin.once("drain", () => resolve());
    });
  }

  request(id: number, method: string, params?: unknown): Promise<void> {
    return this.write(
      JSON.stringify({ method, ...(params === undefined ? {} : { params }), jsonrpc: "2.0", id }),
    );
  }

  reply(id: string | number | null, timeoutMs = 60_000): Promise<Reply> {
    return until(() => this.replies.find((r) => r.id === id), timeoutMs);
  }

  async initialize(): Promise<void> {
    await this.request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    });
    await this.reply(0);
    await this.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.exitCode !== undefined) return resolve();
      this.child.once("exit", () => resolve());
      this.child.stdin.end();
    });
  }
}

let servers: RawServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

function rawServer(rig: Rig): RawServer {
  const server = new RawServer(rig);
  servers.push(server);
  return server;
}

describe("relm mcp serve: frames at and past the limits", () => {
  it("answers a frame too large with an error bearing its id, and serves on", async () => {
    const rig = await startRig("openai", { script: [{ text: "unused" }] });
    const server = rawServer(rig);
    await server.initialize();
    // 70 MiB in one frame, its id last as the SDK's clients write it.
    const huge = "a".repeat(70 * MiB);
    await server.request(7, "tools/call", {
      name: "run_task",
      arguments: { task: "x", variables: { v: huge } },
    });
    const tooLarge = await server.reply(7);
    expect(tooLarge.error?.code).toBe(-32600);
    expect(tooLarge.error?.message).toMatch(/request too large: one message may be at most 64 MiB/);
    await server.request(10, "tools/list");
    expect((await server.reply(10)).result?.tools).toHaveLength(6);
    expect(server.exitCode).toBeUndefined();
    expect(rig.model.requests).toHaveLength(0);
  }, 120_000);

  it("answers tools/call with params: null, and a line that is not JSON, with errors", async () => {
    const rig = await startRig("openai", { script: [{ text: "unused" }] });
    const server = rawServer(rig);
    await server.initialize();
    await server.write('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":null}');
    expect((await server.reply(8)).error).toMatchObject({
      code: -32600,
      message: "invalid request: params must be an object when given",
    });
    await server.write("this is not json");
    expect((await server.reply(null)).error?.code).toBe(-32700);
    await server.request(10, "tools/list");
    expect((await server.reply(10)).result?.tools).toHaveLength(6);
  });

  it("a 40 MB variable fits in a frame but not in a variable (32 MiB): a tool error the model can read", async () => {
    const rig = await startRig("openai", { script: [{ text: "unused" }] });
    const server = rawServer(rig);
    await server.initialize();
    await server.request(9, "tools/call", {
      name: "run_task",
      arguments: { task: "x", variables: { v: "b".repeat(40 * 1000 * 1000) } },
    });
    const bigVariable = await server.reply(9);
    expect(bigVariable.result?.isError).toBe(true);
    expect(bigVariable.result?.content[0]?.text).toMatch(/variable v is too large/);
    expect(server.exitCode).toBeUndefined();
  }, 120_000);

  it("run_task with one 30 MiB variable, over the official SDK client", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: measure it": [
          { code: "print(len(big), big[:3], big[-3:])" },
          (ctx) => ({ text: `measured: ${ctx.lastToolResult?.trim()}` }),
        ],
      }),
    });
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(rig.env)) if (v !== undefined) env[k] = v;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [RELM_BIN, "mcp", "serve"],
      env,
      cwd: rig.cwd,
      stderr: "pipe",
    });
    const client = new Client({ name: "relm-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const big = `xyz${"-".repeat(30 * MiB - 6)}end`;
      const result = (await client.callTool(
        { name: "run_task", arguments: { task: "TASK: measure it", variables: { big } } },
        undefined,
        { timeout: 120_000 },
      )) as ToolResult;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(result.content[0]?.text).toBe(`measured: ${30 * MiB} xyz end`);
      // The variable's content never reached the model.
      expect(rig.model.requests.every((r) => r.rawBody.length < MiB)).toBe(true);
    } finally {
      await client.close();
    }
  }, 180_000);
});

describe("the id of a request too large to read", () => {
  it("is found where it can only be the request's own: the first or the last member", () => {
    expect(idOfEdges('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"a":"', "")).toBe(12);
    expect(idOfEdges('{"id":"abc","method"', "")).toBe("abc");
    expect(idOfEdges('{"method":"tools/call","params":{"x":"', 'aaa"}},"jsonrpc":"2.0","id":5}')).toBe(5);
    expect(idOfEdges('{"method":"tools/call","params":{"x":"', 'aaa"},"id":"q\\"1"}\r')).toBe('q"1');
    // An id inside the params is not the request's.
    expect(idOfEdges('{"method":"x","params":{"id":3,"v":"', 'aaa","id":4}}')).toBeNull();
    expect(idOfEdges("garbage", "garbage")).toBeNull();
  });
});
