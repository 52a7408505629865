// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are what MCP configuration files hold
// The Python API (python/relm/mcp.py) in a real kernel, answered by the host side (src/agent/kernel-api/mcp.ts)
// against real MCP servers from npm over stdio and HTTP.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Budget } from "../../src/agent/budget/budget.js";
import { handleMcpRequest, type McpApiAgent } from "../../src/agent/kernel-api/mcp.js";
import type { Kernel } from "../../src/kernel/index.js";
import { McpClients, type McpServer, parseServer } from "../../src/mcp/index.js";
import type { JournalBody } from "../../src/session/types.js";
import { isAlive, tempDir, useKernels } from "../kernel/helpers.js";
import {
  everythingStdio,
  everythingWithPidFile,
  filesystemStdio,
  type HttpServer,
  startEverythingHttp,
} from "../support/mcp.js";
import { until } from "../support/wait.js";

const start = useKernels();
const SECRET = "mcp-env-secret-0123456789";
// In relm's environment when the servers are configured: a stdio server must get neither (a URL with a
// password is a secret whatever its name, as for kernels), only its own configured env.
const URL_PASSWORD = "pw-mcp-url-0123456789";
process.env.RELM_TEST_DATABASE_URL = `postgres://app:${URL_PASSWORD}@db.internal/app`;
process.env.RELM_TEST_SERVICE_TOKEN = "tok-mcp-0123456789";
process.env.RELM_TEST_PLAIN = "plain-value";

interface Rig {
  kernel: Kernel;
  clients: McpClients;
  events: JournalBody[];
  settled: { method: string; ms: number; error?: string }[];
  /** Methods of the host requests, as they arrive (before they are answered). */
  arrived: string[];
}

const toClose: McpClients[] = [];
afterAll(async () => {
  await Promise.all(toClose.map((c) => c.close()));
});

async function rig(entries: Record<string, unknown>, budget = new Budget({})): Promise<Rig> {
  const dir = await tempDir("relm-mcp-test-");
  const servers: McpServer[] = Object.entries(entries).map(([name, raw]) =>
    parseServer(name, raw, join(dir, ".mcp.json"), "project", process.env, dir),
  );
  const clients = new McpClients(
    { servers, files: [] },
    {
      env: process.env,
      cwd: dir,
      cacheDir: join(dir, "cache"),
      clientVersion: "test",
      requestTimeoutMs: 60_000,
      home: join(dir, "home"),
    },
  );
  toClose.push(clients);
  const events: JournalBody[] = [];
  const settled: Rig["settled"] = [];
  const arrived: string[] = [];
  const agent: McpApiAgent = {
    id: "root",
    tree: { mcp: clients, options: { secrets: [SECRET] } },
    budget,
    record: (body) => events.push(body),
  };
  const kernel = await start({
    cwd: dir,
    onHostRequest: async (method, params) => {
      arrived.push(method);
      const t = performance.now();
      try {
        const result = await handleMcpRequest(agent, method, params);
        settled.push({ method, ms: performance.now() - t });
        return result;
      } catch (error) {
        settled.push({ method, ms: performance.now() - t, error: (error as Error).message });
        throw error;
      }
    },
  });
  return { kernel, clients, events, settled, arrived };
}

describe("MCP tools as Python functions (stdio)", async () => {
  const files = await tempDir("relm-mcp-files-");
  writeFileSync(join(files, "notes.txt"), "hello from a file\n");
  const r = await rig({
    everything: everythingStdio({ EVERYTHING_SECRET: SECRET }),
    filesystem: filesystemStdio(files),
  });
  const run = async (code: string) => {
    const result = await r.kernel.execute(code);
    return result;
  };

  it("lists configured servers without starting any", async () => {
    const out = await run("for s in mcp.servers(): print(s['name'], s['transport'], s['state'], s['tools'])");
    expect(out.output).toBe("everything stdio not started None\nfilesystem stdio not started None\n");
    expect(r.clients.runningPids()).toEqual([]);
  });

  it("a stdio server gets relm's environment without its secrets, plus its own env", async () => {
    // By name: what reaches the kernel is redacted (a URL's password is masked there anyway).
    const out = await run(
      "env = str(mcp.everything.get_env())\nprint('DB URL passed:', 'RELM_TEST_DATABASE_URL' in env)\nprint(env)",
    );
    expect(out.error).toBeUndefined();
    expect(out.output).toContain("DB URL passed: False");
    expect(out.output).toContain("plain-value");
    expect(out.output).toContain("EVERYTHING_SECRET");
    expect(out.output).not.toContain(URL_PASSWORD);
    expect(out.output).not.toContain("tok-mcp-0123456789");
  });

  it("a filesystem tool returns a Python object; the start is journaled", async () => {
    const out = await run(
      `got = mcp.filesystem.read_text_file(path=${JSON.stringify(join(files, "notes.txt"))})\nprint(type(got).__name__, got)`,
    );
    expect(out.error).toBeUndefined();
    expect(out.output).toBe("dict {'content': 'hello from a file\\n'}\n");
    expect(r.events).toContainEqual(
      expect.objectContaining({ type: "mcp", server: "filesystem", event: "started" }),
    );
  });

  it("text comes back as str, JSON text as dicts, images as displayable objects", async () => {
    const out = await run(
      "print(repr(mcp.everything.echo(message='hi')))\n" +
        "s = mcp.everything.get_sum(a=2, b=3)\nprint(type(s).__name__)\n" +
        "parts = mcp.everything.get_tiny_image()\nimg = [p for p in parts if isinstance(p, mcp.Image)][0]\n" +
        "print(img.mime_type, img.data[:4])\ndisplay(img)",
    );
    expect(out.error).toBeUndefined();
    expect(out.output).toContain("'Echo: hi'\n");
    expect(out.output).toContain("b'\\x89PNG'");
    expect(out.images).toHaveLength(1);
    expect(out.images[0]?.mimeType).toBe("image/png");
  });

  it("help() and __doc__ show the description and the argument schema", async () => {
    const out = await run(
      "help(mcp.everything.echo)\nimport inspect\nprint(inspect.signature(mcp.everything.echo))",
    );
    expect(out.output).toContain("echo(*, message: str)");
    expect(out.output).toContain("Echoes back the input string");
    expect(out.output).toContain("message (string, required): Message to echo");
    expect(out.output).toContain('"required": [');
    const doc = await run("print(mcp.everything.trigger_long_running_operation.__doc__)");
    expect(doc.output).toContain("duration (number, default 10): Duration of the operation in seconds");
  });

  it("tools() lists names, descriptions and schemas; dir() the Python names", async () => {
    const out = await run(
      "t = {x['name']: x for x in mcp.everything.tools()}\nprint(t['get-env']['python_name'], 'properties' in t['echo']['input_schema'])\nprint('get_env' in dir(mcp.everything))",
    );
    expect(out.output).toBe("get_env True\nTrue\n");
  });

  it("a tool error raises mcp.ToolError with the server's message", async () => {
    const out = await run(
      "try:\n    mcp.everything.echo()\nexcept mcp.ToolError as e:\n    print(type(e).__name__, e.server, e.tool, '|', e)",
    );
    expect(out.output).toMatch(/^ToolError everything echo \| .*Invalid arguments for tool echo/);
    const unknown = await run(
      "try:\n    mcp.everything.call('no-such-tool', {})\nexcept mcp.ToolError as e:\n    print(e)",
    );
    expect(unknown.output).toContain("Tool no-such-tool not found");
    const attr = await run(
      "try:\n    mcp.everything.no_such_tool\nexcept AttributeError as e:\n    print(e)",
    );
    expect(attr.output).toContain("has no tool 'no_such_tool'; its tools: echo,");
    const server = await run("try:\n    mcp.nobody\nexcept AttributeError as e:\n    print(e)");
    expect(server.output).toBe("no MCP server called 'nobody'; servers: everything, filesystem\n");
  });

  it("resources, resource templates and prompts", async () => {
    const out = await run(
      "res = mcp.everything.list_resources()\nprint(len(res) > 0, res[0]['uri'].startswith('demo://'))\n" +
        "text = mcp.everything.read_resource(res[0]['uri'])\nprint(type(text).__name__)\n" +
        "print([p['name'] for p in mcp.everything.prompts()][:1])\n" +
        "msgs = mcp.everything.get_prompt('simple-prompt')\nprint(msgs[0]['role'], type(msgs[0]['content']).__name__)\n" +
        "print(sorted(t['uriTemplate'] for t in mcp.everything.resource_templates()))",
    );
    expect(out.error).toBeUndefined();
    expect(out.output).toBe(
      "True True\nstr\n['simple-prompt']\nuser str\n" +
        "['demo://resource/dynamic/blob/{resourceId}', 'demo://resource/dynamic/text/{resourceId}']\n",
    );
  });

  it("a server's env secret is given to the server, never shown to the kernel", async () => {
    const out = await run(
      "import os\nenv = mcp.everything.get_env()\nprint(env.get('EVERYTHING_SECRET'), 'EVERYTHING_SECRET' in os.environ)",
    );
    expect(out.output).toBe("[REDACTED] False\n");
    expect(JSON.stringify(r.settled)).not.toContain(SECRET);
  });

  it("an interrupted cell cancels its pending MCP request", async () => {
    const before = r.settled.length;
    const arrivedBefore = r.arrived.length;
    const running = r.kernel.execute(
      "try:\n    mcp.everything.trigger_long_running_operation(duration=30, steps=30)\nexcept KeyboardInterrupt:\n    print('interrupted')",
    );
    // Interrupt once the call is in flight at the host.
    await until(() => (r.clients.get("everything").state === "running" ? true : undefined));
    await until(() => (r.arrived.slice(arrivedBefore).includes("mcp.call") ? true : undefined));
    r.kernel.interrupt();
    const result = await running;
    expect(result.output).toContain("interrupted");
    const call = await until(() => r.settled.slice(before).find((s) => s.method === "mcp.call"));
    expect(call.error).toContain("cancelled");
    expect(call.ms).toBeLessThan(10_000);
    // The server is still usable.
    expect((await run("print(mcp.everything.echo(message='after'))")).output).toBe("Echo: after\n");
  });
});

describe("servers that fail", async () => {
  const dir = await tempDir("relm-mcp-fail-");
  const pidFile = join(dir, "pid");
  const r = await rig({
    broken: { command: "/bin/sh", args: ["-c", "echo 'fatal: no config for broken' >&2; exit 3"] },
    missing: { command: "relm-no-such-mcp-server" },
    dying: everythingWithPidFile(pidFile),
    unset: { command: "x", env: { TOKEN: "${RELM_TEST_UNSET_VAR}" } },
  });

  it("a server that cannot start raises mcp.ServerError naming it, with its stderr; the kernel goes on", async () => {
    const out = await r.kernel.execute(
      "try:\n    mcp.broken.tools()\nexcept mcp.ServerError as e:\n    print(isinstance(e, mcp.ToolError), '|', e)",
    );
    expect(out.output).toContain('True | MCP server "broken"');
    expect(out.output).toContain("exited before it was ready (exit code 3)");
    expect(out.output).toContain("fatal: no config for broken");
    // Called again at once, it is not spawned again: the same error, said to be recent, journaled once.
    const again = await r.kernel.execute(
      "try:\n    mcp.broken.echo()\nexcept mcp.ServerError as e:\n    print(e)",
    );
    expect(again.output).toMatch(
      /exited before it was ready \(exit code 3\) \(\d+ s ago; not tried again for 5 s\)/,
    );
    expect(again.output).toContain("fatal: no config for broken");
    const missing = await r.kernel.execute(
      "try:\n    mcp.missing.tools()\nexcept mcp.ServerError as e:\n    print(e)",
    );
    expect(missing.output).toContain(
      'MCP server "missing" could not start: command "relm-no-such-mcp-server" was not found',
    );
    const unset = await r.kernel.execute(
      "try:\n    mcp.unset.tools()\nexcept mcp.ServerError as e:\n    print(e)",
    );
    expect(unset.output).toContain("${RELM_TEST_UNSET_VAR}, which is not set");
    expect((await r.kernel.execute("print(1 + 1)")).output).toBe("2\n");
    expect(r.events).toContainEqual(
      expect.objectContaining({ type: "mcp", server: "broken", event: "failed" }),
    );
    expect(r.events.filter((e) => e.type === "mcp" && e.server === "broken")).toHaveLength(1);
  });

  it("a server that exits mid-call raises mcp.ServerError with its stderr; the next call starts it again", async () => {
    const out = await r.kernel.execute(
      "import os, signal, threading\n" +
        `pid = int(open(${JSON.stringify(pidFile)}).read()) if os.path.exists(${JSON.stringify(pidFile)}) else None\n` +
        "mcp.dying.echo(message='warm')\n" +
        `pid = int(open(${JSON.stringify(pidFile)}).read())\n` +
        "threading.Timer(0.5, lambda: os.kill(pid, signal.SIGKILL)).start()\n" +
        "try:\n    mcp.dying.trigger_long_running_operation(duration=20, steps=20)\nexcept mcp.ServerError as e:\n    print('ServerError |', e)",
    );
    expect(out.output).toContain(
      'ServerError | MCP server "dying" exited during the request (killed by SIGKILL)',
    );
    expect(out.output).toContain("everything: starting as");
    const first = Number(readFileSync(pidFile, "utf8"));
    expect(isAlive(first)).toBe(false);
    const again = await r.kernel.execute("print(mcp.dying.echo(message='back'))");
    expect(again.output).toBe("Echo: back\n");
    expect(Number(readFileSync(pidFile, "utf8"))).not.toBe(first);
  });
});

describe("the time budget", async () => {
  it("a call still running at the deadline is cancelled", async () => {
    const r = await rig({ everything: everythingStdio() }, new Budget({ maxTimeMs: 4000 }));
    await r.kernel.execute("mcp.everything.echo(message='start it')");
    const out = await r.kernel.execute(
      "try:\n    mcp.everything.trigger_long_running_operation(duration=60, steps=60)\nexcept mcp.ToolError as e:\n    print(e)",
    );
    expect(out.output).toContain("the time budget (--max-time) ran out");
  });
});

describe("MCP over HTTP", async () => {
  const servers: HttpServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it("Streamable HTTP: calls, errors, help, and headers stay on the host", async () => {
    const http = await startEverythingHttp("streamableHttp");
    servers.push(http);
    const r = await rig({
      web: { type: "http", url: http.url, headers: { Authorization: `Bearer ${SECRET}` } },
    });
    const out = await r.kernel.execute(
      "print(mcp.web.echo(message='over http'))\n" +
        "try:\n    mcp.web.echo()\nexcept mcp.ToolError as e:\n    print('ToolError')\n" +
        "print('message (string, required)' in mcp.web.echo.__doc__)\n" +
        "print([s['transport'] for s in mcp.servers()])",
    );
    expect(out.error).toBeUndefined();
    expect(out.output).toBe("Echo: over http\nToolError\nTrue\n['http']\n");
    expect(r.events).toContainEqual(
      expect.objectContaining({
        type: "mcp",
        server: "web",
        event: "started",
        detail: expect.stringMatching(/^http,/),
      }),
    );
  });

  it("falls back to HTTP+SSE for a server that only serves that", async () => {
    const sse = await startEverythingHttp("sse");
    servers.push(sse);
    const r = await rig({ old: { url: sse.url } });
    const out = await r.kernel.execute("print(mcp.old.echo(message='over sse'))");
    expect(out.output).toBe("Echo: over sse\n");
    expect(r.events).toContainEqual(
      expect.objectContaining({
        type: "mcp",
        server: "old",
        event: "started",
        detail: expect.stringMatching(/^sse,/),
      }),
    );
  });

  it("a server that cannot be reached raises mcp.ServerError naming it", async () => {
    const r = await rig({ gone: { url: "http://127.0.0.1:9/mcp" } });
    const out = await r.kernel.execute(
      "try:\n    mcp.gone.tools()\nexcept mcp.ServerError as e:\n    print(e)",
    );
    expect(out.output).toContain('MCP server "gone" (http://127.0.0.1:9/mcp) could not be reached');
  });
});
