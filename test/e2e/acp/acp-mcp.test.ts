// The editor's MCP servers under `relm acp`: given in session/new (and again in session/load) by the
// ACP SDK's own client connection, they become the session's own servers (relm run --mcp-config), called
// from cells of real kernels with the scripted model, their secrets kept out of everything relm writes.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  client as acpClient,
  type McpServer,
  ndJsonStream,
  PROTOCOL_VERSION,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { expect, it } from "vitest";
import { RELM_BIN, runRelm } from "../../support/cli.js";
import { EVERYTHING } from "../../support/mcp.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const SECRET = "acp-mcp-secret-93b1e07c4f";

/** `relm acp` over stdio, with the SDK's client connection; `texts()` is what the agent said. */
async function openEditor(rig: Rig) {
  const child: ChildProcess = spawn(process.execPath, [RELM_BIN, "acp"], {
    env: rig.env,
    cwd: rig.cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const updates: SessionNotification[] = [];
  const conn = acpClient({ name: "editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .connect(
      ndJsonStream(
        Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
      ),
    );
  const init = await conn.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "test", version: "1" },
  });
  const prompt = async (sessionId: string, text: string) => {
    const response = await conn.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text }],
    });
    expect(response.stopReason, stderr).toBe("end_turn");
  };
  const texts = () =>
    updates
      .map((n) => n.update)
      .flatMap((u) =>
        u.sessionUpdate === "agent_message_chunk" ? [(u.content as { text: string }).text] : [],
      )
      .join("");
  const close = async () => {
    conn.close();
    child.stdin?.end();
    await exited;
  };
  return { conn, init, prompt, texts, close, stderr: () => stderr };
}

// As Zed sends them: a working stdio server with a secret in its env, one whose command does not exist,
// and an HTTP entry with a URL relm cannot use (its name has a space, as editors allow).
const SERVERS: McpServer[] = [
  {
    name: "everything",
    command: process.execPath,
    args: [EVERYTHING, "stdio"],
    env: [{ name: "EVERYTHING_TOKEN", value: SECRET }],
  },
  { name: "broken", command: "/nonexistent/mcp-server", args: [], env: [] },
  {
    type: "http",
    name: "bad url",
    url: "ftp://example.invalid/mcp",
    headers: [{ name: "Authorization", value: `Bearer ${SECRET}` }],
  },
];

const FIRST_CELL = [
  "print(mcp.everything.echo(message='hi from the editor'))",
  "import os",
  `print('secret in kernel env:', any('${SECRET.slice(0, 14)}' in v for v in os.environ.values()))`,
  "for name in ('broken', 'bad_url'):",
  "    try:",
  "        getattr(mcp, name).tools()",
  "    except Exception as e:",
  "        print(f'{name} -> {type(e).__name__}: {e}')",
].join("\n");

it("the editor's MCP servers are the session's own: called from a cell, again after session/load, secrets kept out", async () => {
  const rig = await startRig("openai", {
    script: byTask({
      "TASK: editor servers": [
        { code: FIRST_CELL },
        echoLastCell,
        { code: "print(mcp.everything.echo(message='after load'))" },
        echoLastCell,
        { code: "print('servers after a load with none:', mcp.servers())" },
        echoLastCell,
      ],
    }),
  });
  const first = await openEditor(rig);
  let id = "";
  try {
    expect(first.init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
    id = (await first.conn.agent.request("session/new", { cwd: rig.cwd, mcpServers: SERVERS })).sessionId;
    const file = join(rig.home, "sessions", id, "editor-mcp.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await first.prompt(id, "TASK: editor servers");
    const said = first.texts();
    expect(said).toContain("Echo: hi from the editor");
    expect(said).toContain("secret in kernel env: False");
    // A server that cannot start fails at its first call, naming it and why; the session goes on.
    expect(said).toMatch(/broken -> \w+: .*broken.*(ENOENT|not found|No such file)/s);
    // An entry relm cannot use is refused at its first call with the reason (not at session/new, so the
    // editor's other servers still work).
    expect(said).toMatch(/bad_url -> \w+: .*"url" must start with http:\/\/ or https:\/\//);
  } finally {
    await first.close();
    // The host stops: the next prompt revives the session from its journal.
    await runRelm(["shutdown"], { env: rig.env });
  }

  const second = await openEditor(rig);
  try {
    await second.conn.agent.request("session/load", { sessionId: id, cwd: rig.cwd, mcpServers: SERVERS });
    await second.prompt(id, "and again");
    expect(second.texts()).toContain("Echo: after load");
  } finally {
    await second.close();
    await runRelm(["shutdown"], { env: rig.env });
  }

  // A later load that gives no servers drops the editor's (its file is removed) and the session still
  // comes back: the host is not started with a remembered --mcp-config naming the removed file.
  const third = await openEditor(rig);
  try {
    await third.conn.agent.request("session/load", { sessionId: id, cwd: rig.cwd, mcpServers: [] });
    expect(existsSync(join(rig.home, "sessions", id, "editor-mcp.json"))).toBe(false);
    await third.prompt(id, "without servers");
    expect(third.texts()).toMatch(/servers after a load with none: (\[\]|\{\})/);
  } finally {
    await third.close();
    await runRelm(["shutdown"], { env: rig.env });
  }
  expect(readFileSync(join(rig.home, "sessions", id, "flags.json"), "utf8")).not.toContain("editor-mcp");

  // The servers given at session/new were in the system prompt from the first request on (frozen).
  const systems = rig.model.requests.map((r) =>
    JSON.stringify((r.body as { messages: { role: string }[] }).messages.find((m) => m.role === "system")),
  );
  expect(systems.length).toBeGreaterThan(3);
  expect(new Set(systems).size).toBe(1);
  expect(systems[0]).toContain("everything");
  // The secret went to the server only: not in the journal, the requests or the host's log.
  expect(readFileSync(join(rig.home, "sessions", id, "journal.jsonl"), "utf8")).not.toContain(SECRET);
  expect(JSON.stringify(rig.model.requests)).not.toContain(SECRET);
  const hostLog = readFileSync(join(rig.home, "sessions", id, "host.log"), "utf8");
  expect(first.stderr() + second.stderr() + hostLog).not.toContain(SECRET);
});
